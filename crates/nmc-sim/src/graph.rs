//! The one shortest-hop search: a breadth-first search that the models' static routes share
//! (`nmc-net`'s and `nmc-imp`'s per-destination routes, `nmc-routing`'s `ShortestHop`).
//!
//! Ties are decided by the order the caller lists a node's edges in: the first edge to reach a
//! node wins, and nodes are expanded in the order they were reached. A caller that lists edges by
//! increasing number gets "ties go to the lowest-numbered edge", so routes depend only on the
//! input, never on hashing or allocation.

use std::collections::VecDeque;

/// Breadth-first search over nodes `0..n` from `start`.
///
/// `edges(v)` lists the edges leaving `v` as `(edge, neighbour)`, in tie-break order (for a
/// search over reversed edges, list the edges *into* `v` with their tails). `reached(u, edge,
/// from)` is called once for every node `u` other than `start` that can be reached, when it is
/// first reached: by `edge`, from `from`, which was itself reached earlier (or is `start`). Calls
/// come in order of increasing hop count. Neighbours outside `0..n` are ignored; a `start`
/// outside `0..n` reaches nothing.
pub fn breadth_first<E, I>(
    n: usize,
    start: usize,
    mut edges: impl FnMut(usize) -> I,
    mut reached: impl FnMut(usize, E, usize),
) where
    I: IntoIterator<Item = (E, usize)>,
{
    if start >= n {
        return;
    }
    let mut seen = vec![false; n];
    seen[start] = true;
    let mut frontier = VecDeque::from([start]);
    while let Some(v) = frontier.pop_front() {
        for (e, u) in edges(v) {
            if u < n && !seen[u] {
                seen[u] = true;
                reached(u, e, v);
                frontier.push_back(u);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_edge_wins_and_order_is_by_hops() {
        // A square 0-1-2-3-0 (edge k joins k and k+1 mod 4), plus a stray edge to node 9.
        let adj = |v: usize| {
            let mut e = vec![(v, (v + 1) % 4), ((v + 3) % 4, (v + 3) % 4)];
            e.sort();
            if v == 0 {
                e.push((7, 9));
            }
            e
        };
        let mut got = Vec::new();
        breadth_first(4, 0, adj, |u, e, from| got.push((u, e, from)));
        assert_eq!(got, vec![(1, 0, 0), (3, 3, 0), (2, 1, 1)]);
        let mut none = 0;
        breadth_first(4, 4, adj, |_, _: usize, _| none += 1);
        assert_eq!(none, 0);
    }
}

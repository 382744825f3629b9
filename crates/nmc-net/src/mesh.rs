//! A generated mesh: `n` nodes, every node with `min..=max` lines, connected, drawn from a seed.
//!
//! 1. A random spanning tree makes the mesh connected: the nodes in a shuffled order, each
//!    joined to a node drawn uniformly from those before it that still have fewer than `max`
//!    lines.
//! 2. Each node draws a target degree uniformly in `min..=max`; the line ends still wanted are
//!    shuffled and paired, skipping a pair that would be a self-loop, a second line between two
//!    nodes, or a node's line beyond `max`.
//! 3. A node still short of `min` is joined to nodes drawn at random with fewer than `max`
//!    lines (then the first such node in order), while there is one.
//!
//! Everything comes from one [`nmc_sim::Stream`] seeded by `seed`, so the same arguments give
//! the same lines, in the same order (sorted: `a < b`, by `a` then `b`). The result has no
//! self-loops and no parallel lines; every degree is at most `max`, and at least `min`
//! whenever the sizes allow it (the tests check 1,000 nodes at degree 3–4).

use nmc_sim::{RngStreams, Stream};
use std::collections::HashSet;

/// The lines `(a, b)`, `a < b`, of the mesh. Errors are one line naming the bad value.
pub fn generate(n: u32, min: u32, max: u32, seed: u64) -> Result<Vec<(u32, u32)>, String> {
    if n < 2 {
        return Err(format!("a mesh needs at least 2 nodes, got {n}"));
    }
    if min == 0 || min > max {
        return Err(format!("degree: need 1 <= min <= max, got {min}..{max}"));
    }
    if max < 2 && n > 2 {
        return Err(format!(
            "degree: {n} nodes cannot be connected with at most {max} line each"
        ));
    }
    if min > n - 1 {
        return Err(format!(
            "degree: {n} nodes give each at most {} lines, not {min}",
            n - 1
        ));
    }
    let mut rng = RngStreams::new(seed).stream(0);
    let nu = n as usize;
    let mut deg = vec![0u32; nu];
    let mut lines: HashSet<(u32, u32)> = HashSet::with_capacity(nu * max as usize / 2 + 1);
    fn add(a: u32, b: u32, deg: &mut [u32], lines: &mut HashSet<(u32, u32)>) {
        lines.insert((a.min(b), a.max(b)));
        deg[a as usize] += 1;
        deg[b as usize] += 1;
    }
    // 1. Spanning tree.
    let mut order: Vec<u32> = (0..n).collect();
    shuffle(&mut order, &mut rng);
    let mut open = vec![order[0]];
    for &v in &order[1..] {
        let k = rng.uniform_inclusive(0, open.len() as u64 - 1) as usize;
        let u = open[k];
        add(u, v, &mut deg, &mut lines);
        if deg[u as usize] >= max {
            open.swap_remove(k);
        }
        if deg[v as usize] < max {
            open.push(v);
        }
    }
    // 2. Target degrees, ends paired at random.
    let target: Vec<u32> = (0..n)
        .map(|_| rng.uniform_inclusive(min as u64, max as u64) as u32)
        .collect();
    let mut ends: Vec<u32> = Vec::new();
    for v in 0..n {
        for _ in deg[v as usize]..target[v as usize] {
            ends.push(v);
        }
    }
    shuffle(&mut ends, &mut rng);
    for pair in ends.chunks_exact(2) {
        let (a, b) = (pair[0], pair[1]);
        if a != b
            && deg[a as usize] < max
            && deg[b as usize] < max
            && !lines.contains(&(a.min(b), a.max(b)))
        {
            add(a, b, &mut deg, &mut lines);
        }
    }
    // 3. Nodes still short of `min`.
    for v in 0..n {
        while deg[v as usize] < min {
            let ok = |u: u32, deg: &[u32], lines: &HashSet<(u32, u32)>| {
                u != v && deg[u as usize] < max && !lines.contains(&(u.min(v), u.max(v)))
            };
            let mut pick = None;
            for _ in 0..64 {
                let u = rng.uniform_inclusive(0, n as u64 - 1) as u32;
                if ok(u, &deg, &lines) {
                    pick = Some(u);
                    break;
                }
            }
            let pick = pick.or_else(|| (0..n).find(|&u| ok(u, &deg, &lines)));
            match pick {
                Some(u) => add(u, v, &mut deg, &mut lines),
                None => break,
            }
        }
    }
    let mut out: Vec<(u32, u32)> = lines.into_iter().collect();
    out.sort_unstable();
    Ok(out)
}

/// Fisher–Yates, from the back.
fn shuffle(v: &mut [u32], rng: &mut Stream) {
    for i in (1..v.len()).rev() {
        let j = rng.uniform_inclusive(0, i as u64) as usize;
        v.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn degrees(n: u32, lines: &[(u32, u32)]) -> Vec<u32> {
        let mut d = vec![0; n as usize];
        for &(a, b) in lines {
            d[a as usize] += 1;
            d[b as usize] += 1;
        }
        d
    }

    fn connected(n: u32, lines: &[(u32, u32)]) -> bool {
        let mut adj = vec![Vec::new(); n as usize];
        for &(a, b) in lines {
            adj[a as usize].push(b);
            adj[b as usize].push(a);
        }
        let mut seen = vec![false; n as usize];
        let mut stack = vec![0u32];
        seen[0] = true;
        while let Some(v) = stack.pop() {
            for &u in &adj[v as usize] {
                if !seen[u as usize] {
                    seen[u as usize] = true;
                    stack.push(u);
                }
            }
        }
        seen.iter().all(|&s| s)
    }

    #[test]
    fn a_1000_node_mesh_is_deterministic_connected_and_within_its_degrees() {
        let a = generate(1000, 3, 4, 1).unwrap();
        assert_eq!(a, generate(1000, 3, 4, 1).unwrap(), "same seed, same mesh");
        assert_ne!(
            a,
            generate(1000, 3, 4, 2).unwrap(),
            "another seed, another mesh"
        );
        assert!(connected(1000, &a));
        let d = degrees(1000, &a);
        assert!(d.iter().all(|&x| (3..=4).contains(&x)), "{:?}", {
            let mut h = [0; 8];
            d.iter().for_each(|&x| h[x.min(7) as usize] += 1);
            h
        });
        assert!(a.iter().all(|&(x, y)| x < y));
        let mut dedup = a.clone();
        dedup.dedup();
        assert_eq!(dedup.len(), a.len(), "no parallel lines");
    }

    #[test]
    fn many_sizes_and_seeds_are_connected_and_capped() {
        for n in [2u32, 3, 4, 5, 10, 50, 333] {
            for (min, max) in [(1, 2), (2, 3), (3, 4), (1, 6)] {
                if min > n - 1 || (max < 2 && n > 2) {
                    continue;
                }
                for seed in 0..5 {
                    let l = generate(n, min, max, seed).unwrap();
                    assert!(connected(n, &l), "{n} {min}..{max} seed {seed}");
                    assert!(degrees(n, &l).iter().all(|&x| x <= max));
                }
            }
        }
    }

    #[test]
    fn impossible_sizes_are_refused_in_one_line() {
        for (n, min, max) in [(1, 1, 2), (10, 0, 3), (10, 4, 3), (10, 1, 1), (3, 3, 4)] {
            let e = generate(n, min, max, 1).unwrap_err();
            assert!(!e.contains('\n') && !e.is_empty());
        }
    }
}

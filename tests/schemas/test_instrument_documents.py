"""Issue 58 §4: the JSON Schema files of the instruments' -J documents (schemas/nmc-instrument-2/)
hold for every kind of document the instruments print, measured on loopback: each tool's whole
run, its interval lines, -R, --bidir, UDP, a sweep, a server that is not there and a command
line that is refused. And they are not vacuous: a key renamed, a unit changed or a document of
the older schema is refused.

Run by scripts/test.sh with NMC_CLI (the debug build of `nmc`); skipped without it.
"""

import copy
import json
import os
import pathlib
import socket
import subprocess
import sys
import time

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "schemas" / "nmc-instrument-2"
FILE_OF_TOOL = {
    "nmc echo probe": "echo-probe",
    "nmc pump": "pump",
    "nmc stream": "stream",
    "nmc cost": "cost",
    "nmc rrul": "rrul",
}
NMC = os.environ.get("NMC_CLI", "")

pytestmark = pytest.mark.skipif(not NMC, reason="NMC_CLI (the nmc binary) is not set")


def registry():
    return Registry().with_resources(
        (p.name, Resource.from_contents(json.loads(p.read_text())))
        for p in sorted(SCHEMAS.glob("*.schema.json"))
    )


REGISTRY = registry()


def validator(tool):
    schema = json.loads((SCHEMAS / f"{FILE_OF_TOOL[tool]}.schema.json").read_text())
    return Draft202012Validator(schema, registry=REGISTRY)


def problems(doc):
    """What the document's own tool's schema says is wrong with it (empty: it holds)."""
    return [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
        for e in validator(doc["tool"]).iter_errors(doc)
    ]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """`nmc serve` on loopback, answering every instrument."""
    port = free_port()
    log = tmp_path_factory.mktemp("serve") / "serve.log"
    with open(log, "w") as f:
        p = subprocess.Popen(
            [NMC, "serve", "--listen", f"127.0.0.1:{port}", "--duration", "300s"],
            stdout=f,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if p.poll() is not None or time.monotonic() > deadline:
                p.kill()
                pytest.fail(f"nmc serve did not start: {log.read_text()}")
            time.sleep(0.05)
    yield f"127.0.0.1:{port}"
    p.terminate()
    p.wait(timeout=30)


def document(args, codes=(0,)):
    """`nmc ARGS -J`'s one document; its exit status must be one of `codes`."""
    o = subprocess.run([NMC, *args, "-J"], capture_output=True, text=True, timeout=300)
    assert o.returncode in codes, f"nmc {' '.join(args)}: exit {o.returncode}: {o.stderr}"
    return json.loads(o.stdout)


def test_the_schemas_are_valid_json_schemas():
    names = sorted(p.name for p in SCHEMAS.glob("*.schema.json"))
    assert names == sorted(
        ["common.schema.json"] + [f"{f}.schema.json" for f in FILE_OF_TOOL.values()]
    )
    for p in SCHEMAS.glob("*.schema.json"):
        Draft202012Validator.check_schema(json.loads(p.read_text()))


def test_every_kind_of_document_holds(server, tmp_path):
    out = lambda n: str(tmp_path / n)  # noqa: E731
    dead = f"127.0.0.1:{free_port()}"
    docs = {
        "probe": document(["echo", "probe", server, "--count", "20", "--gap", "1ms",
                           "--report-interval", "5ms", "--out", out("p1")]),
        "probe, paced, one length": document(["echo", "probe", server, "--count", "10",
                                              "--interval", "5ms", "--length", "100",
                                              "--out", out("p2")]),
        "probe to nothing": document(["echo", "probe", dead, "--count", "3",
                                      "--open-timeout", "1s", "--out", out("p3")], codes=(3,)),
        "pump, intervals": document(["pump", server, "-t", "1s", "-i", "250ms", "--out", out("u1")]),
        "pump over UDP": document(["pump", server, "-t", "1s", "-i", "500ms", "--transport", "udp",
                                   "--out", out("u2")]),
        "pump -R": document(["pump", server, "-t", "1s", "-R", "--out", out("u3")]),
        "pump --bidir": document(["pump", server, "-t", "1s", "--bidir", "--out", out("u4")]),
        "pump -P": document(["pump", server, "-t", "1s", "-P", "2", "--out", out("u4p")]),
        "pump -k -P": document(["pump", server, "-k", "21", "-P", "2", "--out", out("u4k")]),
        "pump -n": document(["pump", server, "-n", "10K", "--out", out("u4n")]),
        "pump -O -i": document(["pump", server, "-O", "500ms", "-t", "1s", "-i", "250ms",
                                "--out", out("u4o")]),
        "pump to nothing": document(["pump", dead, "-t", "1s", "--out", out("u5")], codes=(3,)),
        "rrul": document(["rrul", server, "--up", "1", "--down", "1", "-t", "1s", "--before",
                          "300ms", "--after", "300ms", "--step", "100ms", "--probe-interval",
                          "20ms", "--out", out("r1")]),
        "rrul to nothing": document(["rrul", dead, "--up", "1", "--down", "0", "-t", "1s",
                                     "--before", "0s", "--after", "0s", "--out", out("r2")],
                                    codes=(3,)),
        "stream": document(["stream", server, "-t", "1s", "--out", out("s1")]),
        "stream over UDP, acknowledged": document(["stream", server, "-t", "1s", "--udp", "--ack",
                                                   "--out", out("s2")]),
        "stream -R, intervals": document(["stream", server, "-t", "2s", "-R", "-i", "1s",
                                          "--out", out("s3")]),
        "stream, intervals": document(["stream", server, "-t", "2s", "-i", "1s", "--out", out("s4")]),
        "stream -u -R, intervals": document(["stream", server, "-t", "1s", "-u", "-R", "-i",
                                             "250ms", "--out", out("s4u")]),
        "stream -k over UDP": document(["stream", server, "-k", "9", "--udp", "-b", "100k",
                                        "--out", out("s6")]),
        "stream -n -R": document(["stream", server, "-n", "2520", "-R", "-b", "100k",
                                  "--out", out("s7")]),
        "stream bulk -R": document(["stream", server, "-u", "--bulk", "-b", "2M", "-R", "-t", "1s",
                                    "--no-records", "--out", out("s8")]),
        "stream -u -i, the receiver's side": document(["stream", server, "-u", "-t", "1s", "-i",
                                                       "250ms", "--out", out("s9")]),
        "stream -O -u -i": document(["stream", server, "-u", "--bulk", "-b", "1M", "-t", "1s", "-O",
                                     "500ms", "-i", "250ms", "--out", out("s10")]),
        "stream -O -R": document(["stream", server, "-t", "1s", "-O", "300ms", "-R", "-i", "250ms",
                                  "--out", out("s11")]),
        "stream --bidir": document(["stream", server, "-u", "-t", "1s", "--bidir", "-i", "500ms",
                                    "--out", out("s12")]),
        "pump -R -k": document(["pump", server, "-R", "-k", "9", "--out", out("u6")]),
        "pump --bidir -O": document(["pump", server, "--bidir", "-O", "300ms", "-t", "500ms",
                                     "-i", "250ms", "--out", out("u7")]),
        "stream sweep": document(["stream", server, "--sweep", "--rates", "30kbit/s,60kbit/s",
                                  "--buffers", "252B", "-t", "1s", "--out", out("s5")]),
        "cost": document(["cost", "--sizes", "4096", "--write-sizes", "1,1024",
                          "--out", out("c1.csv")]),
    }
    for tool in FILE_OF_TOOL:
        docs[f"{tool}: refused command line"] = document(
            [*tool.split()[1:], "--no-such-flag"], codes=(2,)
        )
    # The runs are the kinds asked for, not errors that would pass the schema for other reasons.
    for name, doc in docs.items():
        refused = "to nothing" in name or "refused" in name
        assert ("error" in doc) == refused, f"{name}: {doc.get('error')}"
    assert docs["pump --bidir"]["end"]["bidir"] is True
    assert docs["pump -P"]["end"]["parallel"] == 2
    # -k/-n (issue 75 §3): the count shared out, each answered; 10 KiB is 11 messages of 1008.
    assert docs["pump -k -P"]["end"]["sum"]["messages_answered"] == 21
    assert docs["pump -k -P"]["parameters"]["count"] == 21
    assert docs["pump -n"]["parameters"]["count"] == 11
    assert docs["pump -n"]["end"]["messages_answered"] == 11
    # Issue 75 §2: a TCP pump's interval lines carry TCP's figures, as iperf3's (Linux).
    iv = docs["pump, intervals"]["end"]["intervals"]
    assert all(i["data_bytes"] >= 0 for i in iv)
    if sys.platform.startswith("linux"):
        assert all("retransmits" in i and i["cwnd_bytes"] > 0 for i in iv), iv
    udp_iv = docs["pump over UDP"]["end"]["intervals"]
    assert udp_iv and all("retransmits" not in i for i in udp_iv)
    # -O (issue 75 §3): the warm-up apart, its intervals marked.
    o = docs["pump -O -i"]
    assert o["parameters"]["omit_s"] == 0.5 and o["end"]["omitted"]["duration_s"] == 0.5
    assert o["end"]["omitted"]["answered"] > 0
    assert [i.get("omitted", False) for i in o["end"]["intervals"]][:3] == [True, True, False]
    assert o["end"]["messages_answered"] >= o["end"]["answered_in_run"] + o["end"]["omitted"]["answered"]
    # Issue 75 §1: iperf3 -u -R -b, the sink's bulk source, counted here.
    (b,) = docs["stream bulk -R"]["end"]["tests"]
    assert b["buffers_sent"] > 0 and b["gaps"] == 0 and b["sink_received"] is not None
    # The stream's -k/-n: exactly that many buffers (2520 bytes are ten 2016-bit buffers).
    (k,) = docs["stream -k over UDP"]["end"]["tests"]
    assert (k["buffers_due"], k["buffers_sent"], k["sink_received"]) == (9, 9, 9)
    (n,) = docs["stream -n -R"]["end"]["tests"]
    assert (n["buffers_due"], n["buffers_sent"]) == (10, 10)
    assert docs["pump -R"]["end"]["reverse"] is True
    assert len(docs["stream sweep"]["end"]["tests"]) == 2
    assert docs["probe"]["end"]["intervals"], "no interval lines"
    r = docs["rrul"]["end"]
    assert len(r["steps"]) == 16 and r["loaded_volleys"] > 0 and r["up_bit_per_s"] > 0
    # Issue 75 §5: the irtt figures are there to be checked (UDP to nmc serve).
    assert {"ipdv", "jitter_s", "delay_up", "delay_down", "ipdv_up"} <= docs["probe"]["end"].keys()
    assert docs["stream -R, intervals"]["end"]["intervals"][0]["buffers_received"] >= 0
    # Issue 75 §2: over UDP a reverse run's interval lines have loss, order and jitter, as
    # iperf3's; over TCP they do not.
    udp_lines = docs["stream -u -R, intervals"]["end"]["intervals"]
    assert all({"lost", "out_of_order"} <= line.keys() for line in udp_lines), udp_lines
    assert any("jitter_s" in line for line in udp_lines), udp_lines
    assert not any("lost" in line for line in docs["stream -R, intervals"]["end"]["intervals"])
    # The receiver's rate, where something counted what arrived (reverse, or the sink over UDP).
    assert "received_rate_bit_per_s" in docs["stream -u -R, intervals"]["end"]["tests"][0]
    assert "received_rate_bit_per_s" not in docs["stream"]["end"]["tests"][0]
    # Issue 75 §1: a forward UDP stream's lines carry the sink's side; they add up to its tally.
    fwd = docs["stream -u -i, the receiver's side"]["end"]
    assert sum(i["receiver"]["buffers_received"] for i in fwd["intervals"]) == fwd["tests"][0]["sink_received"]
    # Over TCP, the sink's lines by its clock, adding up to what was sent.
    tcp = docs["stream, intervals"]["end"]
    assert sum(i["buffers_received"] for i in tcp["receiver_intervals"]) == tcp["tests"][0]["buffers_sent"]
    # Issue 75 §2: the stream's warm-up apart, and both ways at once.
    for name in ("stream -O -u -i", "stream -O -R"):
        (t,) = docs[name]["end"]["tests"]
        assert t["omitted"]["buffers_sent"] > 0 and t["omitted"]["received"] == t["omitted"]["buffers_sent"], t
    assert docs["stream -O -u -i"]["end"]["intervals"][0]["omitted"] is True
    assert docs["stream --bidir"]["end"]["bidir"] is True
    assert docs["stream --bidir"]["end"]["reverse"]["tests"][0]["reverse"] is True
    # Issue 75 §3: the pump's bounds in reverse.
    assert docs["pump -R -k"]["end"]["messages_sent"] == 9 and docs["pump -R -k"]["end"]["receiver"]["messages"] == 9
    assert docs["pump --bidir -O"]["end"]["reverse"]["omitted"]["duration_s"] == 0.3
    bad = {name: problems(doc) for name, doc in docs.items() if problems(doc)}
    assert not bad, json.dumps(bad, indent=1)


def test_a_changed_document_is_refused(server, tmp_path):
    pump = document(["pump", server, "-t", "1s", "-i", "250ms", "--out", str(tmp_path / "u")])
    assert problems(pump) == []

    renamed = copy.deepcopy(pump)
    renamed["end"]["throughput_kbit_per_s"] = renamed["end"].pop("throughput_bit_per_s")
    assert problems(renamed)

    older = copy.deepcopy(pump)
    older["schema"] = "nmc-instrument/1"
    assert problems(older)

    extra = copy.deepcopy(pump)
    extra["parameters"]["window"] = 4
    assert problems(extra)

    probe = document(["echo", "probe", server, "--count", "5", "--report-interval", "5ms",
                      "--out", str(tmp_path / "p")])
    assert problems(probe) == []
    in_ms = copy.deepcopy(probe)
    for line in in_ms["end"]["intervals"]:
        line["rtt_mean_ms"] = line.pop("rtt_mean_s")
    assert problems(in_ms), "version 1's interval keys in milliseconds still pass"

    wrong_tool = copy.deepcopy(probe)
    wrong_tool["tool"] = "nmc pump"
    assert problems(wrong_tool)

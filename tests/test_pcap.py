"""pcap export (``pathpool run --pcap``): a two-path MPTCP transfer written to
pcap and read back with dpkt (and tshark, when installed), checked against the
simulator's own counts and sequence numbers (docs/results.md, "pcap export")."""

from __future__ import annotations

import json
import shutil
import socket
import struct
import subprocess
from pathlib import Path

import dpkt
import pytest

import pathpool
from pathpool import ScenarioError
from pathpool.cli import main

SIZE = 2_000_000

#: A client with two interfaces, each behind its own router and path to the
#: server; one MPTCP flow of 2 MB. Queues hold the whole transfer, so nothing
#: is lost and every sequence number is sent once.
TWO_PATHS = {
    "sim": {"duration": "3s"},
    "nodes": [{"name": "client"}, {"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"},
              {"name": "server"}],
    "links": [
        {"a": "client:eth0", "b": "r1", "rate": "100Mbps", "delay": "1ms"},
        {"a": "client:eth1", "b": "r2", "rate": "100Mbps", "delay": "1ms"},
        {"name": "path1", "a": "r1", "b": "server:eth0", "rate": "20Mbps", "delay": "10ms", "queue": 2000},
        {"name": "path2", "a": "r2", "b": "server:eth1", "rate": "10Mbps", "delay": "30ms", "queue": 2000},
    ],
    "flows": [{"name": "mptcp", "src": "client", "dst": "server", "transport": "mptcp", "size": SIZE}],
}

MPTCP_KIND = 30


def _checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of ``data``."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _records(path: Path) -> list[tuple[int, int, bytes]]:
    """(caplen, len, bytes) of each record, read from the file's own record headers (pcap-savefile(5))."""
    data = path.read_bytes()
    magic = struct.unpack("<I", data[:4])[0]
    assert magic == 0xA1B23C4D, "nanosecond-resolution pcap, little-endian"
    records, at = [], 24
    while at < len(data):
        _, _, caplen, length = struct.unpack("<IIII", data[at:at + 16])
        records.append((caplen, length, data[at + 16:at + 16 + caplen]))
        at += 16 + caplen
    return records


def _dss(tcp: dpkt.tcp.TCP) -> dict[str, int] | None:
    """The DSS option of ``tcp`` (RFC 8684 §3.3), parsed by hand: its mapping and Data ACK."""
    for kind, body in dpkt.tcp.parse_opts(tcp.opts):
        if kind != MPTCP_KIND or body[0] >> 4 != 2:
            continue
        flags, at, out = body[1], 2, {}
        if flags & 0x01:
            width = 8 if flags & 0x02 else 4
            out["data_ack"] = int.from_bytes(body[at:at + width], "big")
            at += width
        if flags & 0x04:
            width = 8 if flags & 0x08 else 4
            out["dsn"] = int.from_bytes(body[at:at + width], "big")
            out["ssn"], out["length"] = struct.unpack("!IH", body[at + width:at + width + 6])
        return out
    return None


def _mptcp_subtypes(tcp: dpkt.tcp.TCP) -> list[int]:
    return [body[0] >> 4 for kind, body in dpkt.tcp.parse_opts(tcp.opts) if kind == MPTCP_KIND]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("pcap") / "run"
    results = pathpool.run(TWO_PATHS, out=out, pcap="path1,path2")
    return out, results


def test_one_file_per_link_holding_exactly_the_packets_the_links_table_counts(run):
    out, results = run
    links = results.links
    assert results.flows["retransmits"].sum() == 0, "the queues were meant to hold the whole transfer"
    for name in ("path1", "path2"):
        records = _records(out / f"{name}.pcap")
        sent = int(links.loc[links["link"] == name, "packets_sent"].sum())
        assert sent > 100 and len(records) == sent
        assert all(caplen <= length for caplen, length, _ in records)
    assert sorted(p.name for p in out.glob("*.pcap")) == ["path1.pcap", "path2.pcap"]


def test_headers_only_with_the_payload_counted_in_the_lengths_and_valid_checksums_for_a_zero_payload(run):
    out, _ = run
    payload_total = 0
    for name in ("path1", "path2"):
        for caplen, length, data in _records(out / f"{name}.pcap"):
            ip = dpkt.ethernet.Ethernet(data).data
            assert isinstance(ip, dpkt.ip.IP) and ip.p == dpkt.ip.IP_PROTO_TCP
            header = data[14:14 + ip.hl * 4]
            assert _checksum(header) == 0, "IPv4 header checksum"
            assert length == 14 + ip.len
            tcp_len = ip.len - ip.hl * 4
            tcp_header_len = (data[14 + ip.hl * 4 + 12] >> 4) * 4
            payload = tcp_len - tcp_header_len
            assert caplen == 14 + ip.hl * 4 + tcp_header_len, "headers only"
            segment = data[14 + ip.hl * 4:] + b"\0" * payload
            pseudo = ip.src + ip.dst + struct.pack("!BBH", 0, ip.p, tcp_len)
            assert _checksum(pseudo + segment) == 0, "TCP checksum over the zero payload"
            payload_total += payload
    # Every byte once (no losses), on one path or the other.
    assert payload_total == SIZE


def _segments(path: Path) -> list[tuple[tuple[str, int, str, int], dpkt.tcp.TCP, int]]:
    """(four-tuple, TCP header, payload length) of each TCP segment in the file."""
    out = []
    for _, length, data in _records(path):
        ip = dpkt.ethernet.Ethernet(data).data
        tcp = ip.data
        payload = ip.len - ip.hl * 4 - tcp.off * 4
        out.append(((socket.inet_ntoa(ip.src), tcp.sport, socket.inet_ntoa(ip.dst), tcp.dport), tcp, payload))
    return out


def test_handshake_then_contiguous_sequence_numbers_and_monotone_acks_per_direction(run):
    out, _ = run
    for name, first_subtype in (("path1", 0), ("path2", 1)):
        segments = _segments(out / f"{name}.pcap")
        syn = [s for s in segments if s[1].flags & dpkt.tcp.TH_SYN]
        assert [bool(t.flags & dpkt.tcp.TH_ACK) for _, t, _ in syn] == [False, True]
        # MP_CAPABLE (subtype 0) on the first subflow's handshake, MP_JOIN (1) on the other's.
        assert all(_mptcp_subtypes(t) == [first_subtype] for _, t, _ in syn)
        assert all(t.seq == 2**32 - 1 for _, t, _ in syn), "ISN 2^32 - 1"
        client, server = syn[0][0], syn[1][0]
        assert server == (client[2], client[3], client[0], client[1])
        data = [(t, n) for four, t, n in segments if four == client and n > 0]
        acks = [t for four, t, n in segments if four == server and not t.flags & dpkt.tcp.TH_SYN]
        assert data and acks
        assert data[0][0].seq == 0, "the first payload byte is byte 0"
        for (a, n), (b, _) in zip(data, data[1:]):
            assert b.seq == a.seq + n
        assert all(b.ack >= a.ack for a, b in zip(acks, acks[1:]))
        assert acks[-1].ack == data[-1][0].seq + data[-1][1]


def test_dss_mappings_cover_the_transfer_once_across_both_subflows_and_data_acks_reach_its_end(run):
    out, _ = run
    mappings, data_acks = [], []
    for name in ("path1", "path2"):
        for four, tcp, payload in _segments(out / f"{name}.pcap"):
            dss = _dss(tcp)
            if payload > 0:
                assert dss is not None and dss["length"] == payload and dss["ssn"] == tcp.seq + 1
                mappings.append((dss["dsn"], payload))
            elif dss is not None and "data_ack" in dss:
                data_acks.append(dss["data_ack"])
    mappings.sort()
    assert mappings[0][0] == 0
    for (a, n), (b, _) in zip(mappings, mappings[1:]):
        assert b == a + n
    assert mappings[-1][0] + mappings[-1][1] == SIZE
    assert max(data_acks) == SIZE


def test_an_unknown_link_is_refused_before_the_run_naming_the_available_ones(tmp_path):
    with pytest.raises(ScenarioError, match=r"no link named 'nope'.*client-r1, client-r2, path1, path2"):
        pathpool.run(TWO_PATHS, out=tmp_path / "run", pcap=["path1", "nope"])
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match="needs out="):
        pathpool.run(TWO_PATHS, pcap="path1")


def test_the_command_line_writes_the_file_into_the_results_directory(runner, tmp_path):
    scenario = tmp_path / "two-paths.json"
    scenario.write_text(json.dumps(TWO_PATHS))
    done = runner.invoke(main, ["run", str(scenario), "--out", str(tmp_path / "run"), "--pcap", "path2"])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "run" / "path2.pcap").is_file() and "path2.pcap" in done.output
    refused = runner.invoke(main, ["run", str(scenario), "--out", str(tmp_path / "other"), "--pcap", "wifi"])
    assert refused.exit_code == 2 and "no link named 'wifi'" in refused.output
    assert not (tmp_path / "other").exists()


TSHARK = shutil.which("tshark")


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (make install apt-installs it as root)")
def test_tshark_reads_the_same_segments_and_data_sequence_numbers_without_warnings(run):
    out, _ = run
    path = out / "path2.pcap"
    fields = subprocess.run(
        [TSHARK, "-r", str(path), "-T", "fields", "-E", "separator=,", "-e", "tcp.seq_raw", "-e", "tcp.len",
         "-e", "mptcp.dss.dsn"], capture_output=True, text=True, check=True).stdout.splitlines()
    ours = [(t.seq, n, (_dss(t) or {}).get("dsn")) for _, t, n in _segments(path)]
    assert len(fields) == len(ours)
    theirs = [tuple(f.split(",")) for f in fields]
    assert [(int(s), int(n), int(d) if d else None) for s, n, d in theirs] == ours
    warnings = subprocess.run([TSHARK, "-r", str(path), "-Y", "_ws.malformed || _ws.expert.severity >= warning"],
                              capture_output=True, text=True, check=True).stdout
    assert warnings.strip() == ""

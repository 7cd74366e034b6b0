"""The result tables: their columns, Arrow types, units and meaning.

This module is the single definition of pathpool's result format. Every plane
(the simulator today, the kernel lab later) produces these tables with exactly
these columns and types, so analysis code never cares where results came from.

Each column's unit and description are stored in the Arrow field metadata
(keys ``unit`` and ``description``; ``unit`` is absent for names and flags), and
each table's description in the schema metadata. Both survive a round trip
through Parquet, so ``pyarrow.parquet.read_schema("flows.parquet")`` documents a
results directory by itself.

The format grows by *adding* tables and columns. :func:`build_table` therefore
keeps columns it does not know (inferring their type) after the known ones, and
:func:`build_tables` keeps tables it does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyarrow as pa


def _column(
    name: str,
    type_: pa.DataType,
    description: str,
    unit: str | None = None,
    nullable: bool = False,
) -> pa.Field:
    metadata = {"description": description}
    if unit is not None:
        metadata["unit"] = unit
    return pa.field(name, type_, nullable=nullable, metadata=metadata)


def _table(description: str, *fields: pa.Field) -> pa.Schema:
    return pa.schema(fields, metadata={"description": description})


FLOWS = _table(
    "One row per application flow.",
    _column("flow_id", pa.uint32(), "Flow number, unique within the run"),
    _column("name", pa.string(), "Flow name from the scenario"),
    _column("src", pa.string(), "Sending node"),
    _column("dst", pa.string(), "Receiving node"),
    _column("transport", pa.string(), "Transport protocol (tcp, ...)"),
    _column("cc", pa.string(), "Congestion control algorithm"),
    _column("size_bytes", pa.uint64(), "Bytes to transfer; null for a bulk flow", "bytes", nullable=True),
    _column("start_s", pa.float64(), "Time the flow started; null if it never did (a flow started by another's completion)", "s", nullable=True),
    _column("finish_s", pa.float64(), "Time the last byte reached the receiving application; null if it never did", "s", nullable=True),
    _column("fct_s", pa.float64(), "Flow completion time, finish_s - start_s; null if not done", "s", nullable=True),
    _column("completed", pa.bool_(), "Whether a sized flow delivered all its bytes"),
    _column("bytes_delivered", pa.uint64(), "Application bytes delivered in order to the receiver", "bytes"),
    _column("goodput_bps", pa.float64(), "bytes_delivered over the flow's active time", "bit/s"),
    _column("segments_sent", pa.uint64(), "Data segments sent, retransmissions included", "segments"),
    _column("retransmits", pa.uint64(), "Data segments retransmitted", "segments"),
    _column("timeouts", pa.uint64(), "Retransmission timeouts that fired; null on the kernel lab (tcp_info counts none per connection)", "events", nullable=True),
    _column("rtt_mean_s", pa.float64(), "Mean RTT sample; null without samples", "s", nullable=True),
    _column("rtt_min_s", pa.float64(), "Smallest RTT sample; null without samples", "s", nullable=True),
    _column("ooo_delay_mean_s", pa.float64(), "MPTCP: mean time a data segment waited in the connection-level reassembly buffer (0 for segments that arrived in order); null for single-path flows and before any data", "s", nullable=True),
    _column("ooo_delay_p95_s", pa.float64(), "MPTCP: 95th percentile (nearest rank) of the same waits; null for single-path flows and before any data", "s", nullable=True),
    _column("aggregation_pct", pa.float64(), "MPTCP with baselines: goodput_bps / sum of the single-path baselines' goodputs, in percent (S-MPTCP eq. 1); null otherwise", "%", nullable=True),
)

LINKS = _table(
    "One row per link direction.",
    _column("link_id", pa.uint32(), "Link direction number, unique within the run"),
    _column("name", pa.string(), "Name of this direction: link name and direction"),
    _column("link", pa.string(), "Name of the link this direction belongs to"),
    _column("src", pa.string(), "Node this direction sends from"),
    _column("dst", pa.string(), "Node this direction delivers to"),
    _column("rate_bps", pa.float64(), "Configured rate (for a capacity trace, its mean)", "bit/s"),
    _column("delay_s", pa.float64(), "One-way propagation delay (for a delay schedule, at time 0; link_ts.delay_s over time)", "s"),
    _column("bytes_sent", pa.uint64(), "Bytes transmitted, headers included", "bytes"),
    _column("packets_sent", pa.uint64(), "Packets transmitted", "packets"),
    _column("utilisation", pa.float64(), "Bits sent (random losses included) / bits the capacity allowed over the run; bytes count when transmission starts, so it can exceed 1 by a packet", "1"),
    _column("drops_queue", pa.uint64(), "Packets dropped because the queue was full", "packets"),
    _column("drops_loss", pa.uint64(), "Packets dropped by the loss model", "packets"),
    _column("drops_down", pa.uint64(), "Packets dropped while the link was down", "packets"),
    _column("max_queue_bytes", pa.uint64(), "Largest queue occupancy", "bytes"),
    _column("max_queue_packets", pa.uint64(), "Largest queue occupancy", "packets"),
)

FLOW_TS = _table(
    "Per-flow time series, one row per flow and sampling instant.",
    _column("time_s", pa.float64(), "Sampling instant", "s"),
    _column("flow_id", pa.uint32(), "Flow number (flows.flow_id)"),
    _column("goodput_bps", pa.float64(), "Goodput over the last sampling interval", "bit/s"),
    _column("cwnd_bytes", pa.uint64(), "Congestion window", "bytes"),
    _column("srtt_s", pa.float64(), "Smoothed RTT; NaN before the first sample", "s"),
    _column("bytes_in_flight", pa.uint64(), "Payload bytes believed in the network (RFC 6675 pipe: outstanding minus SACKed and lost, plus retransmitted)", "bytes"),
    _column("pacing_rate_bps", pa.float64(), "Pacing rate set by the congestion control, in payload bits per second (segments leave payload/rate apart); NaN when the flow is not paced (newreno, cubic and westwood set none; bbr always does)", "bit/s"),
    _column("bw_estimate_bps", pa.float64(), "The congestion control's estimate of the path bandwidth, in payload bits per second: Westwood+'s filtered BWE or BBR's windowed max delivery rate, 0 before the first estimate; NaN for algorithms that keep none (newreno, cubic)", "bit/s"),
    _column("imbalance_bytes", pa.int64(), "MPTCP flow imbalance (Green MPTCP): bytes sent and not yet Data-ACKed minus the open subflows' bytes in flight; 0 for single-path flows; null for MPTCP flows on the kernel lab", "bytes", nullable=True),
    _column("increment", pa.float64(), "The congestion control's additive-increase coefficient a (W += a/W per ACK): Westwood+'s, which eMPTCP sets to x²; NaN for other algorithms and for MPTCP flows (see subflow_ts)"),
)

LINK_TS = _table(
    "Per-link-direction time series, one row per direction and sampling instant.",
    _column("time_s", pa.float64(), "Sampling instant", "s"),
    _column("link_id", pa.uint32(), "Link direction number (links.link_id)"),
    _column("queue_bytes", pa.uint64(), "Queue occupancy", "bytes"),
    _column("queue_packets", pa.uint64(), "Queue occupancy", "packets"),
    _column("rate_bps", pa.float64(), "Throughput over the last sampling interval", "bit/s"),
    _column("capacity_bps", pa.float64(), "Mean capacity over the interval ending at time_s", "bit/s"),
    _column("delay_s", pa.float64(), "One-way propagation delay in force at time_s (a delay schedule's current step)", "s"),
)

SUBFLOW_TS = _table(
    "Per-subflow time series of MPTCP flows, one row per open subflow and sampling instant.",
    _column("time_s", pa.float64(), "Sampling instant", "s"),
    _column("flow_id", pa.uint32(), "Flow number (flows.flow_id)"),
    _column("subflow_id", pa.uint32(), "Subflow number within the flow (subflows.subflow_id)"),
    _column("delivered_bps", pa.float64(), "Payload the subflow handed to the connection's receiver (duplicates included) over the last sampling interval", "bit/s"),
    _column("cwnd_bytes", pa.uint64(), "The subflow's congestion window", "bytes"),
    _column("srtt_s", pa.float64(), "The subflow's smoothed RTT; NaN before the first sample", "s"),
    _column("bytes_in_flight", pa.uint64(), "The subflow's payload bytes in flight (RFC 6675 pipe)", "bytes"),
    _column("bw_estimate_bps", pa.float64(), "The subflow's congestion-control bandwidth estimate in payload bits per second (Westwood+'s BWE, BBR's max filter); NaN for algorithms that keep none and on the kernel lab", "bit/s"),
    _column("increment", pa.float64(), "The subflow's additive-increase coefficient a (Westwood+; eMPTCP sets a = x²); NaN for other algorithms"),
)

SUBFLOWS = _table(
    "One row per subflow of every MPTCP flow.",
    _column("flow_id", pa.uint32(), "Flow number (flows.flow_id)"),
    _column("subflow_id", pa.uint32(), "Subflow number within the flow, in the order subflows were opened"),
    _column("local_interface", pa.string(), "The flow source's interface, node:interface"),
    _column("remote_interface", pa.string(), "The flow destination's interface, node:interface"),
    _column("backup", pa.bool_(), "Flagged backup at the end of the run"),
    _column("state", pa.string(), "At the end of the run: open, closed (by the path manager or an action) or failed (an interface went down)"),
    _column("opened_s", pa.float64(), "When the subflow's handshake started", "s"),
    _column("established_s", pa.float64(), "When its handshake completed; null if it never did", "s", nullable=True),
    _column("closed_s", pa.float64(), "When it was closed or failed; null if still open", "s", nullable=True),
    _column("bytes_sent", pa.uint64(), "Payload bytes sent, retransmissions included", "bytes"),
    _column("bytes_acked", pa.uint64(), "Payload bytes cumulatively acknowledged at the subflow level", "bytes"),
    _column("bytes_reinjected", pa.uint64(), "Payload bytes of data another subflow had carried (reinjections, redundant copies, opportunistic retransmissions); null on the kernel lab", "bytes", nullable=True),
    _column("bytes_delivered", pa.uint64(), "Payload bytes the subflow handed to the connection's receiver, duplicates included; null on the kernel lab", "bytes", nullable=True),
    _column("segments_sent", pa.uint64(), "Data segments sent, retransmissions included", "segments"),
    _column("retransmits", pa.uint64(), "Data segments retransmitted by the subflow", "segments"),
    _column("timeouts", pa.uint64(), "Retransmission timeouts of the subflow, SYN timeouts included; null on the kernel lab", "events", nullable=True),
    _column("rtt_mean_s", pa.float64(), "Mean RTT sample of the subflow; null without samples", "s", nullable=True),
    _column("rtt_min_s", pa.float64(), "Smallest RTT sample of the subflow; null without samples", "s", nullable=True),
)

INTERFACES = _table(
    "One row per interface of every node: what crossed it.",
    _column("node", pa.string(), "Node name"),
    _column("interface", pa.string(), "Interface name"),
    _column("link", pa.string(), "The link attached to it"),
    _column("bytes_sent", pa.uint64(), "Wire bytes whose transmission started on the outgoing direction (random losses included)", "bytes"),
    _column("packets_sent", pa.uint64(), "Packets whose transmission started on the outgoing direction", "packets"),
    _column("bytes_received", pa.uint64(), "Wire bytes that arrived over the incoming direction", "bytes"),
    _column("packets_received", pa.uint64(), "Packets that arrived over the incoming direction", "packets"),
)

BASELINES = _table(
    "Single-path baselines of MPTCP flows with baselines = true: the same run with the flow as single-path TCP over one interface pair.",
    _column("flow_id", pa.uint32(), "Flow number (flows.flow_id)"),
    _column("local_interface", pa.string(), "The source's interface, node:interface"),
    _column("remote_interface", pa.string(), "The destination's interface, node:interface"),
    _column("goodput_bps", pa.float64(), "The single-path flow's goodput, as flows.goodput_bps", "bit/s"),
)

INRPP_INTERFACES = _table(
    "INRPP routers: one row per interface (a link direction leaving a router that runs inrpp), counters over the run.",
    _column("link_id", pa.uint32(), "The interface's link direction (links.link_id)"),
    _column("node", pa.string(), "The router"),
    _column("peer", pa.string(), "The node the interface leads to"),
    _column("cache_size_bytes", pa.uint64(), "S_total, the interface's cache size", "bytes"),
    _column("s_high_bytes", pa.uint64(), "S_high: above it the interface goes into Backpressure", "bytes"),
    _column("s_low_bytes", pa.uint64(), "S_low: below it Backpressure ends", "bytes"),
    _column("max_cache_bytes", pa.uint64(), "Largest cache occupancy", "bytes"),
    _column("packets_cached", pa.uint64(), "INRPP packets (data and SYNs) that went into the cache instead of the queue", "packets"),
    _column("drops_cache", pa.uint64(), "INRPP packets (data and SYNs) dropped because the cache was full", "packets"),
    _column("slow_downs_sent", pa.uint64(), "ACKs the interface tagged with its slow-down notification (in Backpressure)", "ACKs"),
    _column("cancels_sent", pa.uint64(), "ACKs the interface tagged with its cancel notification (in Disable Backpressure)", "ACKs"),
    _column("slow_downs_received", pa.uint64(), "Slow-down notifications of interfaces downstream on ACKs arriving over this interface's link", "notifications"),
    _column("cancels_received", pa.uint64(), "Cancel notifications of interfaces downstream on ACKs arriving over this interface's link", "notifications"),
    _column("releases", pa.uint64(), "Slow-down ACKs that released one cached packet of their flow (closed loop)", "packets"),
    _column("nonces_evicted", pa.uint64(), "Nonces stored at this interface that the router evicted to stay within nonce_capacity (LRU)", "nonces"),
    _column("notifications_rejected", pa.uint64(), "Slow-down and cancel notifications stripped from ACKs arriving over this interface's link that failed authentication (authenticate = true)", "notifications"),
    _column("tcp_partition_bytes", pa.uint64(), "Size of the cache's TCP partition for other transports' data (tcp_partition of traffic; 0: none)", "bytes"),
    _column("tcp_packets_cached", pa.uint64(), "Other transports' data packets that went into the TCP partition", "packets"),
    _column("tcp_drops_cache", pa.uint64(), "Other transports' data packets dropped because the TCP partition was full", "packets"),
    _column("push_s", pa.float64(), "Time spent in Push state", "s"),
    _column("store_and_detour_s", pa.float64(), "Time spent in Store and Detour state", "s"),
    _column("backpressure_s", pa.float64(), "Time spent in Backpressure state", "s"),
    _column("disable_backpressure_s", pa.float64(), "Time spent in Disable Backpressure state", "s"),
)

INRPP_STATES = _table(
    "INRPP routers: one row per interface state change, in time order.",
    _column("time_s", pa.float64(), "When the state changed", "s"),
    _column("link_id", pa.uint32(), "The interface's link direction (links.link_id)"),
    _column("from", pa.string(), "State before: push, store_and_detour, backpressure or disable_backpressure"),
    _column("to", pa.string(), "State after"),
    _column("cache_bytes", pa.uint64(), "Cache occupancy at the change", "bytes"),
)

INRPP_TS = _table(
    "INRPP routers: per-interface time series, one row per interface and sampling instant.",
    _column("time_s", pa.float64(), "Sampling instant", "s"),
    _column("link_id", pa.uint32(), "The interface's link direction (links.link_id)"),
    _column("state", pa.string(), "Interface state"),
    _column("cache_bytes", pa.uint64(), "Cache occupancy", "bytes"),
    _column("nonces_stored", pa.uint32(), "Nonces of interfaces downstream stored here (flows carrying one are served in closed loop)", "nonces"),
    _column("tcp_cache_bytes", pa.uint64(), "Occupancy of the TCP partition", "bytes"),
)

INRPP_FLOW_TS = _table(
    "INRPP routers: per-interface, per-flow cache occupancy, one row per interface, flow with cached data and sampling instant.",
    _column("time_s", pa.float64(), "Sampling instant", "s"),
    _column("link_id", pa.uint32(), "The interface's link direction (links.link_id)"),
    _column("flow_id", pa.uint32(), "Flow number (flows.flow_id)"),
    _column("cache_bytes", pa.uint64(), "The flow's bytes in the interface's cache", "bytes"),
)

INRPP_DETOURS = _table(
    "INRPP routers: one row per one-hop detour (a row of the paper's Table III), counters over the run.",
    _column("link_id", pa.uint32(), "The congested interface the detour relieves (links.link_id)"),
    _column("via", pa.string(), "The detour node"),
    _column("via_link_id", pa.uint32(), "First leg: the router's link direction to the detour node"),
    _column("second_link_id", pa.uint32(), "Second leg: the detour node's link direction to the interface's next hop"),
    _column("packets", pa.uint64(), "Cached data packets sent over the detour", "packets"),
    _column("bytes", pa.uint64(), "Wire bytes of those packets", "bytes"),
    _column("probes_sent", pa.uint64(), "Probes sent to the detour node (every probe_interval)", "probes"),
    _column("answers_received", pa.uint64(), "Probe answers received from it", "probes"),
)

INRPP_DETOUR_TS = _table(
    "INRPP routers: per-detour time series, one row per detour and sampling instant.",
    _column("time_s", pa.float64(), "Sampling instant", "s"),
    _column("link_id", pa.uint32(), "The congested interface (inrpp_detours.link_id)"),
    _column("via_link_id", pa.uint32(), "The detour's first leg (inrpp_detours.via_link_id)"),
    _column("rate_bps", pa.float64(), "The detour rate r_d of eq. 3, wire bits", "bit/s"),
    _column("usable", pa.bool_(), "Rate above zero and both detour egresses in Push state"),
)

CONTROLLER_LOG = _table(
    "Device-side controllers: one row per action a controller took, or that its plane refused, in time order, with the event that led to it. The hosts' MPTCP path managers and timed actions are controllers too (controller = path_manager, timed).",
    _column("time_s", pa.float64(), "When the action was carried out (or refused)", "s"),
    _column("host", pa.string(), "The host the controller runs on"),
    _column("controller", pa.string(), "The controller's kind: path_manager, timed, or a [[controllers]] kind"),
    _column("event", pa.string(), "The event it reacted to: start, connection_established, connection_closed, fallback, subflow_established, subflow_closed, subflow_priority, path_up, interface_up, interface_down, sample, bytes_carried, timer"),
    _column("action", pa.string(), "open_subflow, close_subflow, set_backup, set_scheduler, arm_timer, watch_bytes or log"),
    _column("flow_id", pa.uint64(), "The connection it concerns (flows.flow_id); null for host-wide actions", nullable=True),
    _column("flow", pa.string(), "That flow's name; empty for host-wide actions"),
    _column("subflow_id", pa.uint64(), "The subflow it concerns (subflows.subflow_id; for open_subflow, the one opened); null otherwise", nullable=True),
    _column("outcome", pa.string(), "done, or refused: and the plane's reason"),
    _column("detail", pa.string(), "Free-form: interfaces of an open, the backup flag, a log line"),
)

ENERGY = _table(
    "Energy per host interface over the run ([[devices]]): one row per radio, and per interface plus a device row for Green MPTCP's linear model.",
    _column("node", pa.string(), "The host"),
    _column("interface", pa.string(), "The interface; device for the linear model's w_D term"),
    _column("model", pa.string(), "wifi, lte, umts, nr, wired (a radio), or linear:data / linear:time"),
    _column("energy_j", pa.float64(), "Energy from time 0 to the end of the run", "J"),
    _column("bytes_up", pa.uint64(), "Wire bytes the interface sent (radios; null for the linear model)", "bytes", nullable=True),
    _column("bytes_down", pa.uint64(), "Wire bytes the interface received (radios; null for the linear model)", "bytes", nullable=True),
)

RADIO_TS = _table(
    "Radio time series: one row per radio and sampling instant.",
    _column("time_s", pa.float64(), "Sampling instant", "s"),
    _column("node", pa.string(), "The host"),
    _column("interface", pa.string(), "The interface"),
    _column("state", pa.string(), "idle, promotion, active or tail (Huang et al. 2012)"),
    _column("power_w", pa.float64(), "Power at the instant", "W"),
    _column("energy_j", pa.float64(), "Energy since time 0", "J"),
)

APPS = _table(
    "Applications (app = { kind = ... } in a flow): one row per session, measured at the end of the run (docs/apps.md).",
    _column("flow_id", pa.uint32(), "The flow that carries it (flows.flow_id)"),
    _column("app", pa.string(), "Its identity (name; default the flow's name)"),
    _column("category", pa.string(), "Its category (default its kind)"),
    _column("kind", pa.string(), "download, video or interactive"),
    _column("objects", pa.uint64(), "Responses (objects, segments, messages) delivered in full", "objects"),
    _column("bytes", pa.uint64(), "Their bytes", "bytes"),
    _column("object_time_mean_s", pa.float64(), "Mean time from a request's sending to its response's last byte (interactive: one-way latency)", "s", nullable=True),
    _column("object_time_p95_s", pa.float64(), "Its 95th percentile (nearest rank)", "s", nullable=True),
    _column("completion_s", pa.float64(), "From the flow's start to the last object's last byte, once every object arrived", "s", nullable=True),
    _column("requests_resent", pa.uint64(), "Requests sent again after a loss", "requests"),
    _column("startup_s", pa.float64(), "Video: from the flow's start to the first frame", "s", nullable=True),
    _column("stalls", pa.uint64(), "Video: times the buffer ran empty before the last segment had arrived", "stalls", nullable=True),
    _column("stall_s", pa.float64(), "Video: total stall time", "s", nullable=True),
    _column("mean_bitrate_bps", pa.float64(), "Video: mean bitrate of the segments delivered, weighted by length", "bit/s", nullable=True),
    _column("switches", pa.uint64(), "Video: bitrate changes between consecutive segments", "switches", nullable=True),
    _column("size_announced", pa.bool_(), "Download: whether the size was announced to the client"),
)

APP_TS = _table(
    "Video sessions: one row per session per sample.",
    _column("time_s", pa.float64(), "Sample time", "s"),
    _column("flow_id", pa.uint32(), "The flow (flows.flow_id)"),
    _column("buffer_s", pa.float64(), "Seconds of video buffered", "s"),
    _column("bitrate_bps", pa.float64(), "Bitrate of the segment being shown (0 before the first)", "bit/s"),
)

DNS = _table(
    "DNS lookups (runs with [[resolvers]]): one row per lookup, in the order the answers were handed back (docs/dns.md).",
    _column("time_s", pa.float64(), "When the answer was handed back (asked + query_time_s)", "s"),
    _column("host", pa.string(), "The host that looked the name up"),
    _column("resolver", pa.string(), "The resolver asked ([[resolvers]] name)"),
    _column("domain", pa.string(), "The domain looked up"),
    _column("interface", pa.string(), "The host's interface the query left by (for a routed lookup, the one routing chose)"),
    _column("answer", pa.string(), "The mirrors, comma-separated, in the resolver's order; empty on a failure"),
    _column("ttl_s", pa.float64(), "How long the answer may be cached: its TTL, or what is left of it for an answer from the cache; 0 on a failure", "s"),
    _column("from_cache", pa.bool_(), "Whether the host's cache answered without a query"),
    _column("query_time_s", pa.float64(), "From the lookup to the answer (0 from the cache); a timeout's is attempts x timeout", "s"),
    _column("retries", pa.uint32(), "Queries sent again after a timeout", "queries"),
    _column("outcome", pa.string(), "answer, nxdomain (the resolver does not serve the domain) or timeout (no answer after every attempt)"),
)

FETCHES = _table(
    "Fetch sessions ([[fetches]], then those [[arrivals]] drew, then the pages' objects): one row per session, measured at the end of the run (docs/apps.md#fetch-sessions).",
    _column("session_id", pa.uint32(), "The session's index: [[fetches]] first, then [[arrivals]]' sessions, then [[pages]]' objects"),
    _column("name", pa.string(), "Its name"),
    _column("client", pa.string(), "The client host"),
    _column("content", pa.string(), "The content it downloads ([[contents]])"),
    _column("policy", pa.string(), "default or controller"),
    _column("content_bytes", pa.uint64(), "The content's size", "bytes"),
    _column("bytes", pa.uint64(), "Content bytes delivered to the application (each once)", "bytes"),
    _column("requests", pa.uint64(), "Byte-range requests sent", "requests"),
    _column("start_s", pa.float64(), "When the session started (null if not before the end)", "s", nullable=True),
    _column("completion_s", pa.float64(), "From the session's start to the content's last byte (download time), once every byte arrived", "s", nullable=True),
    _column("connections", pa.uint64(), "Connections opened", "connections"),
    _column("remaps", pa.uint64(), "Steers that moved the session to another connection", "remaps"),
    _column("probes", pa.uint64(), "Probes sent", "probes"),
    _column("probe_bytes", pa.uint64(), "Probe request and response bytes (payload; headers not counted)", "bytes"),
    _column("requests_resent", pa.uint64(), "Requests (content or probe) sent again after a loss", "requests"),
    _column("discarded_bytes", pa.uint64(), "Response bytes drained and discarded after PAT's remap_at = resume moved a range's rest to another connection (docs/pat.md); 0 otherwise", "bytes"),
    _column("error", pa.string(), "Why the session could not go on (its lookup failed, no mirror of the answer reachable); empty if nothing stopped it"),
)

FETCH_REQUESTS = _table(
    "Fetch sessions' requests: one row per byte-range request or probe, in the order sent.",
    _column("session_id", pa.uint32(), "The session (fetches.session_id)"),
    _column("request_id", pa.uint32(), "Its index in the session"),
    _column("kind", pa.string(), "range or probe"),
    _column("offset", pa.uint64(), "A range's first byte in the content (null for a probe)", "bytes", nullable=True),
    _column("bytes", pa.uint64(), "Response bytes asked for", "bytes"),
    _column("flow_id", pa.uint32(), "The connection it went on (flows.flow_id)"),
    _column("mirror", pa.string(), "That connection's mirror"),
    _column("interface", pa.string(), "That connection's client interface"),
    _column("sent_s", pa.float64(), "When the client sent it", "s"),
    _column("first_byte_s", pa.float64(), "When its response's first byte reached the client application", "s", nullable=True),
    _column("done_s", pa.float64(), "When its response's last byte reached the client application (for a cut range, when it was cut)", "s", nullable=True),
    _column("discarded_bytes", pa.uint64(), "Of its response, the last bytes the client stopped reading when a resuming remap cut it and asked another connection for them, drained and discarded; 0 otherwise", "bytes"),
)

PAGES = _table(
    "Page loads ([[pages]]): one row per page, measured at the end of the run (docs/apps.md#web-page-loads).",
    _column("page_id", pa.uint32(), "The page's index in [[pages]]"),
    _column("name", pa.string(), "Its name"),
    _column("client", pa.string(), "The client host"),
    _column("policy", pa.string(), "default (a browser's connections) or controller"),
    _column("objects", pa.uint64(), "Objects of the page, the main object included", "objects"),
    _column("content_bytes", pa.uint64(), "Their sizes' sum", "bytes"),
    _column("bytes", pa.uint64(), "Object bytes delivered to the application", "bytes"),
    _column("start_s", pa.float64(), "When the page load started", "s"),
    _column("load_s", pa.float64(), "Page load time: from the start to the last object's last byte, once every object arrived", "s", nullable=True),
    _column("connections", pa.uint64(), "Connections of the page opened", "connections"),
    _column("requests_resent", pa.uint64(), "Requests (content or probe) sent again after a loss", "requests"),
    _column("discarded_bytes", pa.uint64(), "Response bytes drained and discarded after PAT's remap_at = resume moved a range's rest to another connection (docs/pat.md); 0 otherwise", "bytes"),
    _column("error", pa.string(), "The first object that could not go on and why (content: reason); empty if nothing stopped the page"),
)

PAGE_OBJECTS = _table(
    "Page loads' objects: one row per object, the main object first.",
    _column("page_id", pa.uint32(), "The page (pages.page_id)"),
    _column("object", pa.uint32(), "Its index in the page's objects"),
    _column("session_id", pa.uint32(), "Its fetch session (fetches.session_id)"),
    _column("content", pa.string(), "Its content ([[contents]])"),
    _column("after", pa.string(), "The object whose arrival started it; empty for the main object"),
    _column("depth", pa.uint32(), "Links from the main object (0 for it)", "links"),
    _column("bytes", pa.uint64(), "Its size", "bytes"),
    _column("ready_s", pa.float64(), "When it could be requested (its parent arrived; the page's start for the main object)", "s", nullable=True),
    _column("sent_s", pa.float64(), "When its request left the client (after its lookup and a connection)", "s", nullable=True),
    _column("first_byte_s", pa.float64(), "When its first byte reached the client application", "s", nullable=True),
    _column("done_s", pa.float64(), "When its last byte reached the client application", "s", nullable=True),
    _column("flow_id", pa.uint64(), "The connection it went on (flows.flow_id)", nullable=True),
    _column("mirror", pa.string(), "That connection's server; empty if not requested"),
    _column("interface", pa.string(), "That connection's client interface; empty if not requested"),
    _column("reused", pa.bool_(), "Whether an earlier request (of another object, or a probe) used its connection"),
)

#: The tables every run produces, by name (the file stem in a results directory).
SCHEMAS: dict[str, pa.Schema] = {
    "flows": FLOWS,
    "links": LINKS,
    "flow_ts": FLOW_TS,
    "link_ts": LINK_TS,
    "subflow_ts": SUBFLOW_TS,
    "subflows": SUBFLOWS,
    "interfaces": INTERFACES,
    "baselines": BASELINES,
    "controller_log": CONTROLLER_LOG,
    "energy": ENERGY,
    "apps": APPS,
    "app_ts": APP_TS,
    "dns": DNS,
    "fetches": FETCHES,
    "fetch_requests": FETCH_REQUESTS,
    "pages": PAGES,
    "page_objects": PAGE_OBJECTS,
    "radio_ts": RADIO_TS,
    "inrpp_interfaces": INRPP_INTERFACES,
    "inrpp_states": INRPP_STATES,
    "inrpp_ts": INRPP_TS,
    "inrpp_flow_ts": INRPP_FLOW_TS,
    "inrpp_detours": INRPP_DETOURS,
    "inrpp_detour_ts": INRPP_DETOUR_TS,
}


def _to_arrow(values: Any, type_: pa.DataType | None) -> pa.Array | pa.ChunkedArray:
    """Converts a column (numpy array, list or Arrow array) to Arrow, casting
    to ``type_`` when given and inferring the type otherwise."""
    if isinstance(values, (pa.Array, pa.ChunkedArray)):
        return values if type_ is None else values.cast(type_)
    return pa.array(values, type=type_)


def build_table(name: str, columns: Mapping[str, Any]) -> pa.Table:
    """Builds the result table ``name`` from a mapping of column name to values.

    Values may be numpy arrays, Python lists (``None`` for null) or Arrow
    arrays. For a table in :data:`SCHEMAS` the known columns get exactly the
    schema's type and metadata and come first, in schema order; any further
    columns follow with an inferred type. A table not in :data:`SCHEMAS` is kept
    as it is, every type inferred.

    Raises ValueError if a known column is missing, or holds nulls although the
    schema says it cannot.
    """
    known = SCHEMAS.get(name, pa.schema([]))
    missing = [f.name for f in known if f.name not in columns]
    if missing:
        raise ValueError(f"result table {name!r} lacks column(s) {', '.join(missing)}")
    fields = list(known)
    arrays = [_to_arrow(columns[f.name], f.type) for f in known]
    known_names = set(known.names)
    for column, values in columns.items():
        if column not in known_names:
            array = _to_arrow(values, None)
            fields.append(pa.field(column, array.type))
            arrays.append(array)
    for f, array in zip(fields, arrays, strict=True):
        if not f.nullable and array.null_count:
            raise ValueError(f"result table {name!r}, column {f.name!r}: {array.null_count} null value(s)"
                             " in a column that cannot be null")
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields, metadata=known.metadata))


def build_tables(tables: Mapping[str, Mapping[str, Any] | pa.Table]) -> dict[str, pa.Table]:
    """Builds every result table (see :func:`build_table`) from a mapping of
    table name to columns, such as ``_core.run(...)["tables"]``, or to Arrow
    tables read from files.

    The known tables come first, in :data:`SCHEMAS` order, then any others by
    name (so a result read back from files has the same order). A known table
    that is absent (a table of a later schema addition, or results from a
    plane that has no time series)
    comes back empty, so every result has all of them.
    """
    built = {}
    for name in [*SCHEMAS, *sorted(name for name in tables if name not in SCHEMAS)]:
        columns = tables.get(name)
        if columns is None:
            built[name] = SCHEMAS[name].empty_table()
            continue
        if isinstance(columns, pa.Table):
            columns = dict(zip(columns.column_names, columns.columns, strict=True))
        built[name] = build_table(name, columns)
    return built

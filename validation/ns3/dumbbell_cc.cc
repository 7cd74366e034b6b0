// Cross-validation reference: the anchor dumbbell (shared/anchors/ns3/dumbbell.cc) with
// per-flow measurements, for comparing pathpool's TCP congestion controls with ns-3's.
//
// Topology and defaults are those of the anchor: N senders and N receivers on 1 Gb/s,
// 1 ms access links (PointToPointDumbbellHelper), a bottleneck of --rate and --delay
// whose two devices carry a 1-packet device queue under a --queue-packet FifoQueueDisc,
// MSS 1448, SACK on, 16 MiB socket buffers, bulk senders started --start-step apart.
//
// Prints one JSON object on stdout: totals (goodput, Jain's index, events, wall time,
// data packets delivered to the receivers), per-flow numbers (goodput, time-weighted
// mean srtt and cwnd, mean/min RTT sample, retransmitted segments, fast recoveries,
// timeouts) and per-queue statistics (received, dropped, peak backlog), so a run also
// shows whether the access queues (FqCoDel by ns-3 default) ever drop.
//
// Usage: ns3-dumbbell_cc [--tcp=ns3::TcpNewReno|ns3::TcpCubic|ns3::TcpBbr|ns3::TcpWestwoodPlus]
//                        [--flows=10] [--rate=100Mbps] [--delay=10ms] [--queue=200]
//                        [--time=10] [--startStep=0.01] [--RngRun=1] [--bbrStreamPerFlow]
//                        [--rfc6675Pipe] [--linuxRateSample]
// Any ns-3 attribute default can be overridden as --ns3::Type::Attribute=value.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-layout-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <fstream>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>

using namespace ns3;

namespace
{

/// Integral of a piecewise-constant traced value over time, for a time-weighted mean.
struct TimeWeighted
{
    bool started = false;
    double value = 0; // current value
    Time since;       // when it took that value
    Time first;       // first update
    double integral = 0;

    void Update(double v)
    {
        Time now = Simulator::Now();
        if (started)
        {
            integral += value * (now - since).GetSeconds();
        }
        else
        {
            started = true;
            first = now;
        }
        value = v;
        since = now;
    }

    double Mean(Time end) const
    {
        if (!started || end <= first)
        {
            return std::nan("");
        }
        double total = integral + value * (end - since).GetSeconds();
        return total / (end - first).GetSeconds();
    }
};

struct FlowStats
{
    TimeWeighted srtt;  // seconds
    TimeWeighted cwnd;  // segments
    double rttSampleSum = 0;
    uint64_t rttSamples = 0;
    double rttMin = std::numeric_limits<double>::infinity();
    uint64_t retransmissions = 0; // retransmitted segments
    uint64_t dataSegmentsSent = 0; // incl. retransmissions
    uint64_t fastRecoveries = 0;  // entries into CA_RECOVERY
    uint64_t timeouts = 0;        // entries into CA_LOSS
    uint64_t dataPacketsDelivered = 0; // data segments arriving at the receiving host
    bool hooked = false;
    // Latest traced values, for --traceFile.
    double lastSrtt = std::nan("");
    double lastCwnd = 0;
    double lastPacingBps = std::nan("");
    double lastInFlight = 0;
    double lastSsthresh = std::nan("");
    double lastBwEstimateBps = std::nan(""); // TcpWestwoodPlus's EstimatedBW
};

std::vector<FlowStats> g_flows;
uint32_t g_segmentSize = 1448;
bool g_bbrStreamPerFlow = false;
bool g_rfc6675Pipe = false;
bool g_linuxRateSample = false;

// Two diagnostics (--rfc6675Pipe, --linuxRateSample) need members ns-3 does not expose. A
// protected member is named through a derived class; a private one through the rule that an
// explicit template instantiation may name any member. Nothing else here uses them.
template <typename Tag, typename Tag::type Member>
struct ExposeMember
{
    friend typename Tag::type Get(Tag)
    {
        return Member;
    }
};

struct TxBufferRetransBytes
{
    using type = uint32_t TcpTxBuffer::*;
    friend type Get(TxBufferRetransBytes);
};

template struct ExposeMember<TxBufferRetransBytes, &TcpTxBuffer::m_retrans>;

struct RateLinuxSample
{
    using type = TcpRateOps::TcpRateSample TcpRateLinux::*;
    friend type Get(RateLinuxSample);
};

template struct ExposeMember<RateLinuxSample, &TcpRateLinux::m_rateSample>;

struct RateLinuxConnection
{
    using type = TcpRateOps::TcpRateConnection TcpRateLinux::*;
    friend type Get(RateLinuxConnection);
};

template struct ExposeMember<RateLinuxConnection, &TcpRateLinux::m_rate>;

struct SocketInternals : TcpSocketBase
{
    static Ptr<TcpRateOps>& RateOps(TcpSocketBase& s)
    {
        return s.*(&SocketInternals::m_rateOps);
    }

    static Ptr<TcpTxBuffer>& TxBuffer(TcpSocketBase& s)
    {
        return s.*(&SocketInternals::m_txBuffer);
    }
};

/// ns-3's TcpRateLinux with two of ns-3 3.44's departures from Linux undone, each on its own
/// switch. TcpTxBuffer calls SkbDelivered for every newly SACKed or cumulatively ACKed
/// segment, and TcpSocketBase then calls GenerateSample once for the ACK.
///
/// --rfc6675Pipe: ns-3 keeps a retransmitted segment in BytesInFlight() after it has been
/// SACKed. TcpTxBuffer counts retransmitted bytes in m_retrans and takes them off only when
/// the cumulative ACK passes the segment or a timeout resets the count, so
/// m_sentSize - m_sackedOut - m_lostOut + m_retrans overstates RFC 6675's pipe by the SACKed
/// retransmissions. RFC 6675 (SetPipe counts a segment only while it is not SACKed) and Linux
/// (tcp_sacktag_one: retrans_out -= pcount) take a SACKed retransmission off at once; so does
/// this class, when the segment is SACKed.
///
/// --linuxRateSample: ns-3 keeps one rate sample (m_rateSample) across ACKs and replaces its
/// fields only when an ACK delivers a segment sent later than the sample's, so an ACK for
/// segments sent in the same flight reuses the previous ACK's interval with a larger delivered
/// count, and an ACK that delivers nothing still yields a sample. Linux starts a fresh sample
/// for every ACK (tcp_ack: struct rate_sample rs = { .prior_delivered = 0 }), gives none for
/// an ACK that delivers nothing (tcp_rate_gen: !rs->prior_mstamp), and BBR takes delivered /
/// interval of every valid sample (bbr_update_bw). So does this class.
class TcpRateLinuxDiag : public TcpRateLinux
{
  public:
    Ptr<TcpTxBuffer> m_txBuffer;
    bool m_nothingDelivered{true}; // no segment delivered yet by the ACK being processed

    void SkbDelivered(TcpTxItem* skb) override
    {
        if (skb->GetRateInformation().m_deliveredTime != Time::Max()) // newly delivered
        {
            if (g_rfc6675Pipe && skb->IsSacked() && skb->IsRetrans())
            {
                (*m_txBuffer).*Get(TxBufferRetransBytes()) -= skb->GetSeqSize();
                skb->m_retrans = false;
            }
            if (g_linuxRateSample && m_nothingDelivered)
            {
                this->*Get(RateLinuxSample()) = TcpRateSample();
            }
            m_nothingDelivered = false;
        }
        TcpRateLinux::SkbDelivered(skb);
    }

    const TcpRateSample& GenerateSample(uint32_t delivered,
                                        uint32_t lost,
                                        bool isSackReneg,
                                        uint32_t priorInFlight,
                                        const Time& minRtt) override
    {
        bool nothingDelivered = m_nothingDelivered;
        m_nothingDelivered = true;
        if (!g_linuxRateSample)
        {
            return TcpRateLinux::GenerateSample(delivered, lost, isSackReneg, priorInFlight, minRtt);
        }
        TcpRateSample& rs = this->*Get(RateLinuxSample());
        if (nothingDelivered)
        {
            TcpRateConnection& rc = this->*Get(RateLinuxConnection());
            if (rc.m_appLimited != 0 && rc.m_delivered > rc.m_appLimited)
            {
                rc.m_appLimited = 0;
            }
            rs = TcpRateSample();
            rs.m_ackedSacked = delivered;
            rs.m_bytesLoss = lost;
            rs.m_priorInFlight = priorInFlight;
            rs.m_delivered = -1;
            rs.m_interval = Seconds(0);
            return rs;
        }
        TcpRateLinux::GenerateSample(delivered, lost, isSackReneg, priorInFlight, minRtt);
        bool valid = !rs.m_interval.IsZero() && rs.m_delivered > 0;
        rs.m_deliveryRate =
            valid ? DataRate(rs.m_delivered * 8.0 / rs.m_interval.GetSeconds()) : DataRate(0);
        return rs;
    }
};

void
OnSrtt(uint32_t i, Time, Time v)
{
    if (!v.IsZero())
    {
        g_flows[i].srtt.Update(v.GetSeconds());
        g_flows[i].lastSrtt = v.GetSeconds();
    }
}

void
OnLastRtt(uint32_t i, Time, Time v)
{
    if (!v.IsZero())
    {
        FlowStats& f = g_flows[i];
        f.rttSampleSum += v.GetSeconds();
        f.rttSamples++;
        f.rttMin = std::min(f.rttMin, v.GetSeconds());
    }
}

void
OnCwnd(uint32_t i, uint32_t, uint32_t v)
{
    g_flows[i].cwnd.Update(double(v) / g_segmentSize);
    g_flows[i].lastCwnd = v;
}

void
OnPacingRate(uint32_t i, DataRate, DataRate v)
{
    g_flows[i].lastPacingBps = double(v.GetBitRate());
}

void
OnBytesInFlight(uint32_t i, uint32_t, uint32_t v)
{
    g_flows[i].lastInFlight = v;
}

void
OnSsthresh(uint32_t i, uint32_t, uint32_t v)
{
    g_flows[i].lastSsthresh = v;
}

void
OnEstimatedBw(uint32_t i, DataRate, DataRate v)
{
    g_flows[i].lastBwEstimateBps = double(v.GetBitRate());
}

void
OnCongState(uint32_t i, TcpSocketState::TcpCongState_t old, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY && old != TcpSocketState::CA_RECOVERY)
    {
        g_flows[i].fastRecoveries++;
    }
    if (now == TcpSocketState::CA_LOSS && old != TcpSocketState::CA_LOSS)
    {
        g_flows[i].timeouts++;
    }
}

void
OnRetransmission(uint32_t i,
                 Ptr<const Packet>,
                 const TcpHeader&,
                 const Address&,
                 const Address&,
                 Ptr<const TcpSocketBase>)
{
    g_flows[i].retransmissions++;
}

void
OnSenderTx(uint32_t i, Ptr<const Packet> p, const TcpHeader&, Ptr<const TcpSocketBase>)
{
    if (p->GetSize() > 0)
    {
        g_flows[i].dataSegmentsSent++;
    }
}

void
OnReceiverLocalDeliver(uint32_t i, const Ipv4Header&, Ptr<const Packet> p, uint32_t)
{
    TcpHeader th;
    p->PeekHeader(th);
    if (p->GetSize() > th.GetSerializedSize())
    {
        g_flows[i].dataPacketsDelivered++;
    }
}

/// The bulk sender creates its socket when it starts: connect the traces right after.
void
HookSender(uint32_t i, Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> s = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!s, "flow " << i << ": no TCP socket after the application started");
    if (g_rfc6675Pipe || g_linuxRateSample)
    {
        // Before any data is sent: the SYN is out, the SYN-ACK not yet back.
        auto rate = CreateObject<TcpRateLinuxDiag>();
        rate->m_txBuffer = SocketInternals::TxBuffer(*s);
        SocketInternals::RateOps(*s) = rate;
    }
    s->TraceConnectWithoutContext("RTT", MakeBoundCallback(&OnSrtt, i));
    s->TraceConnectWithoutContext("LastRTT", MakeBoundCallback(&OnLastRtt, i));
    s->TraceConnectWithoutContext("CongestionWindow", MakeBoundCallback(&OnCwnd, i));
    s->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnCongState, i));
    s->TraceConnectWithoutContext("Retransmission", MakeBoundCallback(&OnRetransmission, i));
    s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnSenderTx, i));
    // Only for --traceFile; absent trace sources are simply not sampled.
    s->TraceConnectWithoutContext("PacingRate", MakeBoundCallback(&OnPacingRate, i));
    s->TraceConnectWithoutContext("BytesInFlight", MakeBoundCallback(&OnBytesInFlight, i));
    s->TraceConnectWithoutContext("SlowStartThreshold", MakeBoundCallback(&OnSsthresh, i));
    PointerValue ops;
    s->GetAttribute("CongestionOps", ops);
    if (Ptr<Object> cc = ops.Get<Object>())
    {
        cc->TraceConnectWithoutContext("EstimatedBW", MakeBoundCallback(&OnEstimatedBw, i));
        if (g_bbrStreamPerFlow && DynamicCast<TcpBbr>(cc))
        {
            // Before the first draw (the gain-cycle phase on entering PROBE_BW).
            cc->SetAttribute("Stream", UintegerValue(100 + i));
        }
    }
    g_flows[i].hooked = true;
}

struct QueueClass
{
    std::string name;
    std::vector<Ptr<QueueDisc>> qdiscs;
    uint32_t peakPackets = 0;
};

void
OnBacklog(QueueClass* qc, uint32_t, uint32_t v)
{
    qc->peakPackets = std::max(qc->peakPackets, v);
}

uint64_t g_deviceQueueDrops = 0;

void
OnDeviceQueueDrop(Ptr<const Packet>)
{
    g_deviceQueueDrops++;
}

/// --traceFile: every interval, one TSV row per started flow (the same columns as
/// pathpool's flow_ts where they exist) plus the bottleneck backlog.
std::ofstream g_trace;
Time g_traceInterval;
std::vector<Ptr<PacketSink>> g_sinks;
std::vector<uint64_t> g_prevRx;
Ptr<QueueDisc> g_bottleneckQdisc;
Ptr<NetDevice> g_bottleneckDevice;

void
TraceSample()
{
    double t = Simulator::Now().GetSeconds();
    uint32_t backlog = g_bottleneckQdisc->GetNPackets();
    if (auto p2p = DynamicCast<PointToPointNetDevice>(g_bottleneckDevice))
    {
        backlog += p2p->GetQueue()->GetNPackets();
    }
    for (uint32_t i = 0; i < g_flows.size(); ++i)
    {
        const FlowStats& f = g_flows[i];
        if (!f.hooked)
        {
            continue;
        }
        uint64_t rx = g_sinks[i]->GetTotalRx();
        double goodput = (rx - g_prevRx[i]) * 8.0 / g_traceInterval.GetSeconds();
        g_prevRx[i] = rx;
        g_trace << t << "\t" << i << "\t" << goodput << "\t" << f.lastCwnd << "\t" << f.lastSrtt << "\t"
                << f.lastInFlight << "\t" << f.lastPacingBps << "\t" << backlog << "\t" << f.lastSsthresh
                << "\t" << f.lastBwEstimateBps << "\n";
    }
    Simulator::Schedule(g_traceInterval, &TraceSample);
}

std::string
Num(double v)
{
    if (!std::isfinite(v))
    {
        return "null";
    }
    std::ostringstream os;
    os << std::setprecision(10) << v;
    return os.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nFlows = 10;
    double simTime = 10.0;
    double startStep = 0.01;
    std::string tcp = "ns3::TcpNewReno";
    std::string bottleneckRate = "100Mbps";
    std::string bottleneckDelay = "10ms";
    std::string accessRate = "1Gbps";
    std::string accessDelay = "1ms";
    uint32_t queuePkts = 200;
    std::string traceFile;
    double traceInterval = 0.01;
    CommandLine cmd(__FILE__);
    cmd.AddValue("flows", "number of flows", nFlows);
    cmd.AddValue("time", "simulated seconds", simTime);
    cmd.AddValue("startStep", "seconds between flow starts", startStep);
    cmd.AddValue("tcp", "TCP TypeId: ns3::TcpNewReno, ns3::TcpCubic, ns3::TcpBbr, ns3::TcpWestwoodPlus", tcp);
    cmd.AddValue("rate", "bottleneck rate", bottleneckRate);
    cmd.AddValue("delay", "bottleneck one-way delay", bottleneckDelay);
    cmd.AddValue("accessRate", "access link rate", accessRate);
    cmd.AddValue("accessDelay", "access link one-way delay", accessDelay);
    cmd.AddValue("queue", "bottleneck FIFO queue disc size in packets", queuePkts);
    cmd.AddValue("traceFile",
                 "write a per-flow time series here (TSV: time_s flow_id goodput_bps cwnd_bytes "
                 "srtt_s bytes_in_flight pacing_rate_bps bottleneck_queue_packets ssthresh_bytes "
                 "bw_estimate_bps)",
                 traceFile);
    cmd.AddValue("traceInterval", "seconds between --traceFile samples", traceInterval);
    cmd.AddValue("bbrStreamPerFlow",
                 "give each flow's TcpBbr its own random stream (100 + flow). By default every "
                 "TcpBbr uses stream 4, so flows that enter PROBE_BW together draw the same "
                 "gain-cycle phase; Linux draws independently for each socket",
                 g_bbrStreamPerFlow);
    cmd.AddValue("rfc6675Pipe",
                 "take a SACKed retransmission out of BytesInFlight at once, as RFC 6675 and "
                 "Linux do; ns-3 3.44 keeps counting it until the cumulative ACK passes it",
                 g_rfc6675Pipe);
    cmd.AddValue("linuxRateSample",
                 "a fresh delivery-rate sample for every ACK, as Linux's tcp_rate.c; ns-3 3.44 "
                 "carries its sample over from ACK to ACK",
                 g_linuxRateSample);
    cmd.Parse(argc, argv);
    if (tcp.find("::") == std::string::npos)
    {
        tcp = "ns3::" + tcp;
    }
    TypeId tcpTid;
    NS_ABORT_MSG_UNLESS(TypeId::LookupByNameFailSafe(tcp, &tcpTid), "unknown TCP type " << tcp);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(tcpTid));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(g_segmentSize));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    if (tcp == "ns3::TcpBbr")
    {
        // BBR needs pacing. ns-3's TcpBbr switches it on by itself when it starts
        // (TcpBbr::InitPacingRate, with a "BBR must use pacing" warning); say so up front.
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue(accessRate));
    access.SetChannelAttribute("Delay", StringValue(accessDelay));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue(bottleneckRate));
    bottleneck.SetChannelAttribute("Delay", StringValue(bottleneckDelay));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointDumbbellHelper d(nFlows, access, nFlows, access, bottleneck);
    InternetStackHelper stack;
    d.InstallStack(stack);
    TrafficControlHelper fifo;
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc",
                          "MaxSize",
                          StringValue(std::to_string(queuePkts) + "p"));
    // Device 0 of each router is the bottleneck device: the helper creates it first,
    // and the loopback device only comes with the internet stack.
    NetDeviceContainer bn;
    bn.Add(d.GetLeft()->GetDevice(0));
    bn.Add(d.GetRight()->GetDevice(0));
    fifo.Install(bn);
    // Address assignment installs ns-3's default queue disc (FqCoDel) on every other device.
    d.AssignIpv4Addresses(Ipv4AddressHelper("10.1.1.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.2.1.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.3.1.0", "255.255.255.0"));
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    g_flows.resize(nFlows);
    std::vector<Ptr<PacketSink>> sinks;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sink.Install(d.GetRight(i));
        s.Start(Seconds(0));
        s.Stop(Seconds(simTime));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(d.GetRightIpv4Address(i), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(g_segmentSize * 10));
        ApplicationContainer a = src.Install(d.GetLeft(i));
        Time start = Seconds(startStep * i);
        a.Start(start);
        a.Stop(Seconds(simTime));
        Simulator::Schedule(start + NanoSeconds(1),
                            &HookSender,
                            i,
                            DynamicCast<BulkSendApplication>(a.Get(0)));
        d.GetRight(i)->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext(
            "LocalDeliver",
            MakeBoundCallback(&OnReceiverLocalDeliver, i));
    }

    // Queue discs by role, and drops in the device queues underneath them.
    std::vector<QueueClass> classes = {{"bottleneck_left_to_right"},
                                       {"bottleneck_right_to_left"},
                                       {"access_sender_nic"},
                                       {"access_left_router_to_senders"},
                                       {"access_right_router_to_receivers"},
                                       {"access_receiver_nic"}};
    auto rootOf = [](Ptr<Node> n, uint32_t dev) {
        return n->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(n->GetDevice(dev));
    };
    classes[0].qdiscs.push_back(rootOf(d.GetLeft(), 0));
    classes[1].qdiscs.push_back(rootOf(d.GetRight(), 0));
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        classes[2].qdiscs.push_back(rootOf(d.GetLeft(i), 0));
        classes[3].qdiscs.push_back(rootOf(d.GetLeft(), i + 1));
        classes[4].qdiscs.push_back(rootOf(d.GetRight(), i + 1));
        classes[5].qdiscs.push_back(rootOf(d.GetRight(i), 0));
    }
    for (auto& qc : classes)
    {
        for (auto& q : qc.qdiscs)
        {
            NS_ABORT_MSG_IF(!q, "a device of class " << qc.name << " has no queue disc");
            q->TraceConnectWithoutContext("PacketsInQueue", MakeBoundCallback(&OnBacklog, &qc));
        }
    }
    for (NodeList::Iterator n = NodeList::Begin(); n != NodeList::End(); ++n)
    {
        for (uint32_t k = 0; k < (*n)->GetNDevices(); ++k)
        {
            if (auto p2p = DynamicCast<PointToPointNetDevice>((*n)->GetDevice(k)))
            {
                p2p->GetQueue()->TraceConnectWithoutContext("Drop", MakeCallback(&OnDeviceQueueDrop));
            }
        }
    }

    if (!traceFile.empty())
    {
        g_trace.open(traceFile);
        NS_ABORT_MSG_UNLESS(g_trace, "cannot write " << traceFile);
        g_trace << "time_s\tflow_id\tgoodput_bps\tcwnd_bytes\tsrtt_s\tbytes_in_flight\tpacing_rate_bps"
                   "\tbottleneck_queue_packets\tssthresh_bytes\tbw_estimate_bps\n";
        g_traceInterval = Seconds(traceInterval);
        g_sinks = sinks;
        g_prevRx.assign(nFlows, 0);
        g_bottleneckQdisc = classes[0].qdiscs[0];
        g_bottleneckDevice = d.GetLeft()->GetDevice(0);
        Simulator::Schedule(g_traceInterval, &TraceSample);
    }
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Stop(Seconds(simTime));
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Time end = Seconds(simTime);

    double sum = 0;
    double sumsq = 0;
    uint64_t bytes = 0;
    uint64_t delivered = 0;
    uint64_t retx = 0;
    uint64_t recoveries = 0;
    uint64_t timeouts = 0;
    std::ostringstream flows;
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        const FlowStats& f = g_flows[i];
        uint64_t rx = sinks[i]->GetTotalRx();
        double g = rx * 8.0 / simTime / 1e6;
        sum += g;
        sumsq += g * g;
        bytes += rx;
        delivered += f.dataPacketsDelivered;
        retx += f.retransmissions;
        recoveries += f.fastRecoveries;
        timeouts += f.timeouts;
        flows << (i ? ",\n    " : "    ") << "{\"flow\": " << i << ", \"start_s\": " << Num(startStep * i)
              << ", \"bytes_delivered\": " << rx << ", \"goodput_mbps\": " << Num(g)
              << ", \"data_packets_delivered\": " << f.dataPacketsDelivered
              << ", \"data_segments_sent\": " << f.dataSegmentsSent
              << ", \"retransmissions\": " << f.retransmissions
              << ", \"fast_recoveries\": " << f.fastRecoveries << ", \"timeouts\": " << f.timeouts
              << ", \"mean_srtt_ms\": " << Num(f.srtt.Mean(end) * 1e3)
              << ", \"mean_rtt_sample_ms\": "
              << Num(f.rttSamples ? f.rttSampleSum / f.rttSamples * 1e3 : std::nan(""))
              << ", \"min_rtt_ms\": " << Num(f.rttMin * 1e3) << ", \"rtt_samples\": " << f.rttSamples
              << ", \"mean_cwnd_segments\": " << Num(f.cwnd.Mean(end)) << "}";
    }
    std::ostringstream queues;
    bool firstQueue = true;
    for (auto& qc : classes)
    {
        uint64_t received = 0;
        uint64_t dropped = 0;
        uint64_t droppedBefore = 0;
        uint64_t droppedAfter = 0;
        for (auto& q : qc.qdiscs)
        {
            const QueueDisc::Stats& st = q->GetStats();
            received += st.nTotalReceivedPackets;
            dropped += st.nTotalDroppedPackets;
            droppedBefore += st.nTotalDroppedPacketsBeforeEnqueue;
            droppedAfter += st.nTotalDroppedPacketsAfterDequeue;
        }
        queues << (firstQueue ? "    " : ",\n    ") << "\"" << qc.name << "\": {\"queue_disc\": \""
               << qc.qdiscs[0]->GetInstanceTypeId().GetName() << "\", \"devices\": " << qc.qdiscs.size()
               << ", \"received\": " << received << ", \"dropped\": " << dropped
               << ", \"dropped_before_enqueue\": " << droppedBefore
               << ", \"dropped_after_dequeue\": " << droppedAfter
               << ", \"peak_backlog_packets\": " << qc.peakPackets << "}";
        firstQueue = false;
    }
    double jain = sumsq > 0 ? sum * sum / (nFlows * sumsq) : 0;
    std::cout << "{\n  \"simulator\": \"ns-3.44\", \"tcp\": \"" << tcp << "\", \"flows\": " << nFlows
              << ", \"rate\": \"" << bottleneckRate << "\", \"delay\": \"" << bottleneckDelay
              << "\", \"queue_packets\": " << queuePkts << ", \"duration_s\": " << Num(simTime)
              << ",\n  \"wall_s\": " << Num(wall) << ", \"events\": " << Simulator::GetEventCount()
              << ", \"bytes_delivered\": " << bytes << ", \"packets_delivered\": " << delivered
              << ", \"total_goodput_mbps\": " << Num(sum) << ", \"jain_index\": " << Num(jain)
              << ", \"retransmissions\": " << retx << ", \"fast_recoveries\": " << recoveries
              << ", \"timeouts\": " << timeouts << ", \"device_queue_drops\": " << g_deviceQueueDrops
              << ",\n  \"queues\": {\n" << queues.str() << "\n  },\n  \"per_flow\": [\n" << flows.str()
              << "\n  ]\n}" << std::endl;
    Simulator::Destroy();
    return 0;
}

// Prints the ns-3 defaults that the pathpool dumbbell scenario has to match:
//  1. the initial values of the TCP, queue and device attributes (as compiled
//     into the ns-3 libraries in use, not as remembered from documentation);
//  2. what the anchor dumbbell (shared/anchors/ns3/dumbbell.cc) actually installs
//     on every device: device type, rate, device queue, root queue disc;
//  3. the on-wire sizes of the packets crossing the bottleneck (data and ACKs).
// The topology is built with the same helper calls as the anchor.
// Usage: ns3-defaults [--flows=N] [--queue=Q]
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-layout-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <iostream>
#include <map>

using namespace ns3;

namespace
{

void
PrintAttributes(const std::string& typeName, const std::vector<std::string>& only)
{
    TypeId tid = TypeId::LookupByName(typeName);
    for (uint32_t i = 0; i < tid.GetAttributeN(); ++i)
    {
        TypeId::AttributeInformation info = tid.GetAttribute(i);
        if (!only.empty() && std::find(only.begin(), only.end(), info.name) == only.end())
        {
            continue;
        }
        std::cout << "attr " << typeName << "::" << info.name << " = "
                  << info.originalInitialValue->SerializeToString(info.checker) << "\n";
    }
}

std::string
QueueDiscDescription(Ptr<QueueDisc> qd)
{
    if (!qd)
    {
        return "none";
    }
    std::ostringstream os;
    os << qd->GetInstanceTypeId().GetName();
    // FqCoDel has no single MaxSize of its own in every version; read it through
    // the attribute system so that this works for any queue disc.
    QueueSizeValue max;
    TypeId::AttributeInformation info;
    if (qd->GetInstanceTypeId().LookupAttributeByName("MaxSize", &info))
    {
        qd->GetAttribute("MaxSize", max);
        os << " MaxSize=" << max.Get();
    }
    return os.str();
}

std::map<uint32_t, uint64_t> g_bottleneckSizes; // on-wire size -> packets

void
OnBottleneckTx(Ptr<const Packet> p)
{
    g_bottleneckSizes[p->GetSize()]++;
}

std::map<uint32_t, uint64_t> g_ackSizes;

void
OnBottleneckAckTx(Ptr<const Packet> p)
{
    g_ackSizes[p->GetSize()]++;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t nFlows = 2;
    uint32_t queuePkts = 200;
    CommandLine cmd;
    cmd.AddValue("flows", "number of flows", nFlows);
    cmd.AddValue("queue", "bottleneck queue in packets", queuePkts);
    cmd.Parse(argc, argv);

    std::cout << "# 1. attribute defaults (originalInitialValue)\n";
    PrintAttributes("ns3::TcpSocket",
                    {"SndBufSize",
                     "RcvBufSize",
                     "SegmentSize",
                     "InitialSlowStartThreshold",
                     "InitialCwnd",
                     "ConnTimeout",
                     "ConnCount",
                     "DataRetries",
                     "DelAckTimeout",
                     "DelAckCount",
                     "TcpNoDelay",
                     "PersistTimeout"});
    PrintAttributes("ns3::TcpSocketBase", {});
    PrintAttributes("ns3::TcpL4Protocol", {"RttEstimatorType", "SocketType", "RecoveryType"});
    PrintAttributes("ns3::TcpPrrRecovery", {});
    PrintAttributes("ns3::TcpSocketState", {});
    PrintAttributes("ns3::TcpTxBuffer", {});
    PrintAttributes("ns3::RttEstimator", {});
    PrintAttributes("ns3::RttMeanDeviation", {});
    PrintAttributes("ns3::TcpNewReno", {});
    PrintAttributes("ns3::TcpCubic", {});
    PrintAttributes("ns3::TcpBbr", {});
    PrintAttributes("ns3::TcpWestwoodPlus", {});
    PrintAttributes("ns3::TcpRateLinux", {});
    PrintAttributes("ns3::PointToPointNetDevice", {"Mtu", "DataRate", "InterframeGap"});
    PrintAttributes("ns3::DropTailQueue<Packet>", {});
    PrintAttributes("ns3::FifoQueueDisc", {});
    PrintAttributes("ns3::FqCoDelQueueDisc", {});
    PrintAttributes("ns3::CoDelQueueDisc", {"MaxSize", "Interval", "Target", "UseEcn"});
    PrintAttributes("ns3::PfifoFastQueueDisc", {});
    PrintAttributes("ns3::BulkSendApplication", {"SendSize", "MaxBytes"});

    // --- 2. the anchor's topology, built with the anchor's helper calls ---
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue("ns3::TcpNewReno"));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 24));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", StringValue("1Gbps"));
    access.SetChannelAttribute("Delay", StringValue("1ms"));
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", StringValue("100Mbps"));
    bottleneck.SetChannelAttribute("Delay", StringValue("10ms"));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize", StringValue("1p"));
    PointToPointDumbbellHelper d(nFlows, access, nFlows, access, bottleneck);
    InternetStackHelper stack;
    d.InstallStack(stack);
    TrafficControlHelper tch;
    tch.SetRootQueueDisc("ns3::FifoQueueDisc",
                         "MaxSize",
                         StringValue(std::to_string(queuePkts) + "p"));
    NetDeviceContainer bn;
    bn.Add(d.GetLeft()->GetDevice(0));
    bn.Add(d.GetRight()->GetDevice(0));
    tch.Install(bn);
    d.AssignIpv4Addresses(Ipv4AddressHelper("10.1.1.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.2.1.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.3.1.0", "255.255.255.0"));
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    std::cout << "# 2. devices as configured by the anchor dumbbell (after address assignment)\n";
    auto describeNode = [](const std::string& label, Ptr<Node> n) {
        Ptr<TrafficControlLayer> tc = n->GetObject<TrafficControlLayer>();
        for (uint32_t i = 0; i < n->GetNDevices(); ++i)
        {
            Ptr<NetDevice> dev = n->GetDevice(i);
            std::cout << "dev " << label << " #" << i << " " << dev->GetInstanceTypeId().GetName();
            if (auto p2p = DynamicCast<PointToPointNetDevice>(dev))
            {
                DataRateValue rate;
                p2p->GetAttribute("DataRate", rate);
                Ptr<Queue<Packet>> q = p2p->GetQueue();
                std::cout << " rate=" << rate.Get() << " mtu=" << p2p->GetMtu()
                          << " devqueue=" << q->GetInstanceTypeId().GetName()
                          << " MaxSize=" << q->GetMaxSize();
            }
            std::cout << " qdisc=" << QueueDiscDescription(tc ? tc->GetRootQueueDiscOnDevice(dev) : nullptr)
                      << "\n";
        }
    };
    describeNode("left-router", d.GetLeft());
    describeNode("right-router", d.GetRight());
    describeNode("sender0", d.GetLeft(0));
    describeNode("receiver0", d.GetRight(0));

    // --- 3. wire sizes at the bottleneck during a short run ---
    for (uint32_t i = 0; i < nFlows; ++i)
    {
        uint16_t port = 5000 + i;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        sink.Install(d.GetRight(i)).Start(Seconds(0));
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(d.GetRightIpv4Address(i), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        src.SetAttribute("SendSize", UintegerValue(1448 * 10));
        src.Install(d.GetLeft(i)).Start(Seconds(0.01 * i));
    }
    d.GetLeft()->GetDevice(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnBottleneckTx));
    d.GetRight()->GetDevice(0)->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnBottleneckAckTx));
    Simulator::Stop(Seconds(2));
    Simulator::Run();
    std::cout << "# 3. on-wire sizes (bytes incl. 2-byte PPP header) at the bottleneck, 2 s\n";
    for (auto [size, n] : g_bottleneckSizes)
    {
        std::cout << "wire left->right size=" << size << " packets=" << n << "\n";
    }
    for (auto [size, n] : g_ackSizes)
    {
        std::cout << "wire right->left size=" << size << " packets=" << n << "\n";
    }
    Simulator::Destroy();
    return 0;
}

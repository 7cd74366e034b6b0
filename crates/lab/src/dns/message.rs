//! The stub's DNS messages on the wire, written and read by hickory-proto:
//! a query with one question for the A records of a domain (RFC 1035
//! §4.1.2), recursion desired as glibc's stub sets it, and no EDNS(0) OPT
//! record (RFC 6891), so that its size is the simulator's
//! (`pathpool_sim::dns::message::query_bytes`).

use std::net::Ipv4Addr;

use hickory_proto::op::{Message, MessageType, OpCode, Query, ResponseCode};
use hickory_proto::rr::{Name, RData, RecordType};

/// What an answer says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    /// NOERROR: the A records' addresses in the order given, and the
    /// smallest of their TTLs, seconds (RFC 2181 §5.2: an RRset's TTLs
    /// are equal; the smallest is the safe one if not).
    Addresses(Vec<Ipv4Addr>, u32),
    /// RCODE 3, Name Error (RFC 1035 §4.1.1).
    NxDomain,
    /// Any other RCODE (SERVFAIL, REFUSED, ...): the stub ignores it and waits for its timeout.
    Other(u16),
}

/// The bytes of a query with header ID `id` for `domain`'s A records.
pub fn query(id: u16, domain: &str) -> Result<Vec<u8>, String> {
    let name = Name::from_ascii(domain).map_err(|e| format!("'{domain}' is not a domain name: {e}"))?;
    let mut m = Message::new();
    m.set_id(id).set_message_type(MessageType::Query).set_op_code(OpCode::Query).set_recursion_desired(true);
    m.add_query(Query::query(name, RecordType::A));
    m.to_vec().map_err(|e| format!("encoding a query for '{domain}': {e}"))
}

/// Reads a response: its header ID and what it says; Err for bytes that
/// are not a DNS response.
pub fn answer(bytes: &[u8]) -> Result<(u16, Reply), String> {
    let m = Message::from_vec(bytes).map_err(|e| format!("not a DNS message: {e}"))?;
    if m.message_type() != MessageType::Response {
        return Err("a query, not a response".into());
    }
    let reply = match m.response_code() {
        ResponseCode::NoError => {
            let a = m.answers().iter().filter_map(|r| match r.data() {
                RData::A(a) => Some((a.0, r.ttl())),
                _ => None,
            });
            let (addrs, ttls): (Vec<Ipv4Addr>, Vec<u32>) = a.unzip();
            Reply::Addresses(addrs, ttls.into_iter().min().unwrap_or(0))
        }
        ResponseCode::NXDomain => Reply::NxDomain,
        other => Reply::Other(other.into()),
    };
    Ok((m.id(), reply))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hickory_proto::rr::rdata::A;
    use hickory_proto::rr::Record;
    use pathpool_sim::dns::message::{answer_bytes, query_bytes, RecordType as Qtype};

    #[test]
    fn a_query_has_the_simulators_size_and_an_answer_keeps_its_order() {
        let q = query(7, "cdn.example").unwrap();
        assert_eq!(q.len() as u32, query_bytes("cdn.example"), "no EDNS(0) record");
        let mut m = Message::from_vec(&q).unwrap();
        m.set_message_type(MessageType::Response);
        let name = Name::from_ascii("cdn.example").unwrap();
        for (k, ip) in [[10, 0, 0, 3], [10, 0, 0, 1]].into_iter().enumerate() {
            m.add_answer(Record::from_rdata(name.clone(), 30 - k as u32, RData::A(A(ip.into()))));
        }
        let bytes = m.to_vec().unwrap();
        assert_eq!(bytes.len() as u32, answer_bytes("cdn.example", 2, Qtype::A), "names compressed to a pointer (RFC 1035 §4.1.4)");
        assert_eq!(answer(&bytes).unwrap(), (7, Reply::Addresses(vec![[10, 0, 0, 3].into(), [10, 0, 0, 1].into()], 29)));
        m.set_response_code(ResponseCode::NXDomain);
        m.take_answers();
        assert_eq!(answer(&m.to_vec().unwrap()).unwrap(), (7, Reply::NxDomain));
        assert!(answer(&q).is_err(), "a query is not an answer");
        assert!(answer(&[1, 2, 3]).is_err());
    }

    /// The simulator's AAAA sizes (RFC 3596 §2.2) against hickory's encoder:
    /// an AAAA query is as long as an A query, each AAAA record 28 bytes.
    #[test]
    fn an_aaaa_answer_has_the_simulators_size() {
        let name = Name::from_ascii("cdn.example").unwrap();
        let mut m = Message::new();
        m.set_id(7).set_message_type(MessageType::Response).set_op_code(OpCode::Query).set_recursion_desired(true);
        m.add_query(Query::query(name.clone(), RecordType::AAAA));
        assert_eq!(m.to_vec().unwrap().len() as u32, query_bytes("cdn.example"));
        m.add_answer(Record::from_rdata(name, 30, RData::AAAA(hickory_proto::rr::rdata::AAAA("fd00::1".parse().unwrap()))));
        assert_eq!(m.to_vec().unwrap().len() as u32, answer_bytes("cdn.example", 1, Qtype::Aaaa));
    }
}

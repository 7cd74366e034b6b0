//! DNS messages (RFC 1035 §4.1) reduced to what the simulator needs, and
//! their sizes on the wire. A query carries one question, for A records
//! (IPv4 addresses, RFC 1035 §3.4.1) or AAAA records (IPv6 addresses,
//! RFC 3596 §2.1); an answer repeats it and adds one record per mirror.
//! Sizes assume no EDNS(0) OPT record (RFC 6891), which glibc's stub sends
//! only with `options edns0`, and datagrams over IPv4. An NXDOMAIN answer carries no SOA record in
//! its authority section (RFC 2308 §2.1 would add one): the simulator's
//! stub caches no negative answers.

use crate::net::NodeId;
use crate::time::Time;

/// The header: ID, flags, and four section counts, 2 bytes each (§4.1.1).
pub const HEADER_BYTES: u32 = 12;
/// QTYPE and QCLASS after the question's name (§4.1.2).
const QUESTION_FIXED_BYTES: u32 = 4;
/// One A record in the answer section (§4.1.3): NAME as a 2-byte pointer to
/// the question's name (§4.1.4), TYPE 2, CLASS 2, TTL 4, RDLENGTH 2, and the
/// IPv4 address as RDATA 4 (§3.4.1).
pub const A_RECORD_BYTES: u32 = 16;
/// One AAAA record (RFC 3596 §2.2): as an A record, with a 16-byte IPv6
/// address as RDATA.
pub const AAAA_RECORD_BYTES: u32 = 28;
/// Longest label, octets (§2.3.4).
const MAX_LABEL: usize = 63;
/// Longest name on the wire, octets (§2.3.4).
const MAX_NAME: u32 = 255;
/// Longest TTL, seconds: a 32-bit value whose top bit is zero (RFC 2181 §8).
pub const MAX_TTL_S: u64 = (1 << 31) - 1;

/// A question's QTYPE (RFC 1035 §3.2.2, RFC 3596 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordType {
    /// An IPv4 address (TYPE 1).
    A,
    /// An IPv6 address (TYPE 28).
    Aaaa,
}

impl RecordType {
    /// Its place in a lookup's answers: A 0, AAAA 1.
    pub fn slot(self) -> usize {
        self as usize
    }

    /// Bytes of one record of this type in an answer.
    pub fn record_bytes(self) -> u32 {
        match self {
            RecordType::A => A_RECORD_BYTES,
            RecordType::Aaaa => AAAA_RECORD_BYTES,
        }
    }
}

/// What a datagram of the DNS carries.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// `query` is the stub's query id (the header's ID, §4.1.1), `rtype`
    /// the record type asked; `resolver` the resolver asked, which runs on
    /// the destination node.
    Query { query: u32, rtype: RecordType, resolver: u32, domain: String },
    /// The answer to `query`'s question of type `rtype`: mirrors and TTL
    /// (no mirrors: the name has no records of that type, RFC 2308 §2.2's
    /// NODATA), or a Name Error (RCODE 3).
    Answer { query: u32, rtype: RecordType, answer: Option<(Vec<NodeId>, Time)> },
}

/// Bytes of `domain` encoded as a name (§3.1): each label as a length byte
/// and its octets, then the root's zero byte ("cdn.example" and
/// "cdn.example." are 13).
pub fn name_bytes(domain: &str) -> u32 {
    domain.strip_suffix('.').unwrap_or(domain).split('.').map(|l| l.len() as u32 + 1).sum::<u32>() + 1
}

/// Err(why) unless `domain` can be written as a name: labels of 1 to 63
/// octets separated by dots, at most 255 octets encoded (§2.3.4).
pub fn check_name(domain: &str) -> Result<(), String> {
    let domain = domain.strip_suffix('.').unwrap_or(domain);
    if domain.is_empty() || domain.split('.').any(|l| l.is_empty() || l.len() > MAX_LABEL) {
        return Err(format!("'{domain}' is not a domain name: labels of 1 to {MAX_LABEL} characters separated by dots"));
    }
    if name_bytes(domain) > MAX_NAME {
        return Err(format!("'{domain}' is longer than a domain name may be ({MAX_NAME} bytes encoded)"));
    }
    Ok(())
}

/// Payload bytes of a query for `domain`: header and question.
pub fn query_bytes(domain: &str) -> u32 {
    HEADER_BYTES + name_bytes(domain) + QUESTION_FIXED_BYTES
}

/// Payload bytes of an answer for `domain` with `records` records of type `rtype`.
pub fn answer_bytes(domain: &str, records: usize, rtype: RecordType) -> u32 {
    query_bytes(domain) + rtype.record_bytes() * records as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_the_wire_format() {
        // www.example.com: 3 www 7 example 3 com 0 = 17 bytes; 12 + 17 + 4 = 33.
        assert_eq!(query_bytes("www.example.com"), 33);
        assert_eq!(answer_bytes("www.example.com", 2, RecordType::A), 65);
        // RFC 3596 §2.2: 12 bytes of record header and a 16-byte address.
        assert_eq!(answer_bytes("www.example.com", 2, RecordType::Aaaa), 89);
        assert_eq!((name_bytes("cdn.example"), name_bytes("cdn.example.")), (13, 13), "a trailing dot is the root");
        assert!(check_name("cdn.example").is_ok() && check_name("cdn.example.").is_ok());
        assert!(check_name("a..b").is_err() && check_name("").is_err() && check_name(&"x".repeat(64)).is_err());
    }
}

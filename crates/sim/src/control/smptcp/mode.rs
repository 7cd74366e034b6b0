//! S-MPTCP's operating modes (§III-A(i), the user-input classifier, and
//! §III-B1, the path manager's FULLMESH / BACKUP / SPTCP modes).

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every usable interface at once, for throughput (full mesh).
    HassleFree,
    /// The primary interface; the other only once a problem on the primary
    /// has lasted `problem_hold`, and again only while it lasts.
    Reliability,
    /// Every usable interface with the redundant scheduler (the data
    /// sender's choice: applied where this host sends the data).
    LowLatency,
    /// The default interface only.
    SinglePath,
    /// The primary, and the other interfaces as backup subflows (MP_PRIO).
    Backup,
}

impl Mode {
    pub const NAMES: [&'static str; 5] = ["hassle_free", "reliability", "low_latency", "single_path", "backup"];

    pub fn parse(s: &str) -> Option<Mode> {
        match s {
            "hassle_free" => Some(Mode::HassleFree),
            "reliability" => Some(Mode::Reliability),
            "low_latency" => Some(Mode::LowLatency),
            "single_path" => Some(Mode::SinglePath),
            "backup" => Some(Mode::Backup),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Mode::HassleFree => "hassle_free",
            Mode::Reliability => "reliability",
            Mode::LowLatency => "low_latency",
            Mode::SinglePath => "single_path",
            Mode::Backup => "backup",
        }
    }
}

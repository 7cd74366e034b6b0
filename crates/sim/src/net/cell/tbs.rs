//! Channel quality to transport block size: SINR → CQI → MCS → TBS.
//!
//! The chain is the one ns-3's LTE module uses for its "PiroEW2010" AMC
//! model (`LteAmc`, Piro et al., 2010), written out from the published
//! tables it cites:
//! - SINR → spectral efficiency by the Shannon gap for a target BER:
//!   s = log2(1 + SINR / Γ), Γ = −ln(5·BER) / 1.5, BER = 5·10⁻⁵;
//!   CQI = the number of CQI entries whose efficiency is below s (CQI 0:
//!   out of range, nothing is sent).
//! - CQI efficiencies: 3GPP TS 36.213 Table 7.2.3-1 (4-bit CQI table),
//!   rounded to two digits as in 3GPP R1-081483 ("Conveying MCS and TB size
//!   via PDCCH", `TBS_support.xls`), the values ns-3 uses.
//! - CQI → MCS: the highest MCS whose efficiency (R1-081483) does not exceed
//!   the CQI's.
//! - MCS → TBS index: TS 36.213 Table 7.1.7.1-1 (downlink) and Table 8.6.1-1
//!   (uplink).
//! - TBS index and bandwidth (PRBs) → transport block size, bits per 1 ms
//!   subframe: TS 36.213 Table 7.1.7.2.1-1, the rows of the standard LTE
//!   bandwidths (6, 15, 25, 50, 75, 100 PRBs: 1.4, 3, 5, 10, 15, 20 MHz).
//!
//! The HSDPA tables the paper's EURANE model uses (TS 25.214 Tables 7A–7G)
//! could not be checked against a stored copy, so they are not used
//! (docs/cell.md).

/// Efficiency of CQI 0..=15, bit/symbol (TS 36.213 Table 7.2.3-1, two digits).
pub const CQI_EFFICIENCY: [f64; 16] =
    [0.0, 0.15, 0.23, 0.38, 0.6, 0.88, 1.18, 1.48, 1.91, 2.41, 2.73, 3.32, 3.9, 4.52, 5.12, 5.55];

/// Efficiency of MCS 0..=28, bit/symbol (R1-081483).
const MCS_EFFICIENCY: [f64; 29] = [
    0.15, 0.19, 0.23, 0.31, 0.38, 0.49, 0.6, 0.74, 0.88, 1.03, 1.18, 1.33, 1.48, 1.7, 1.91, 2.16, 2.41, 2.57, 2.73,
    3.03, 3.32, 3.61, 3.9, 4.21, 4.52, 4.82, 5.12, 5.33, 5.55,
];

/// TBS index of MCS 0..=28, downlink (TS 36.213 Table 7.1.7.1-1).
const ITBS_DL: [usize; 29] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 11, 12, 13, 14, 15, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26];
/// TBS index of MCS 0..=28, uplink (TS 36.213 Table 8.6.1-1).
const ITBS_UL: [usize; 29] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 23, 24, 25, 26];

/// Bandwidths the table below covers, PRBs.
pub const PRBS: [u32; 6] = [6, 15, 25, 50, 75, 100];

/// Transport block size, bits per 1 ms subframe, by TBS index 0..=26, for
/// each of `PRBS` (TS 36.213 Table 7.1.7.2.1-1, those rows).
const TBS: [[u32; 27]; 6] = [
    [152, 208, 256, 328, 408, 504, 600, 712, 808, 936, 1032, 1192, 1352, 1544, 1736, 1800, 1928, 2152, 2344, 2600, 2792, 2984, 3240, 3496, 3624, 3752, 4392],
    [392, 520, 648, 872, 1064, 1320, 1544, 1800, 2088, 2344, 2664, 2984, 3368, 3880, 4264, 4584, 4968, 5352, 5992, 6456, 6968, 7480, 7992, 8504, 9144, 9528, 11064],
    [680, 904, 1096, 1416, 1800, 2216, 2600, 3112, 3496, 4008, 4392, 4968, 5736, 6456, 7224, 7736, 7992, 9144, 9912, 10680, 11448, 12576, 13536, 14112, 15264, 15840, 18336],
    [1384, 1800, 2216, 2856, 3624, 4392, 5160, 6200, 6968, 7992, 8760, 9912, 11448, 12960, 14112, 15264, 16416, 18336, 19848, 21384, 22920, 25456, 27376, 28336, 30576, 31704, 36696],
    [2088, 2728, 3368, 4392, 5352, 6712, 7736, 9144, 10680, 11832, 12960, 15264, 16992, 19080, 21384, 22920, 24496, 27376, 29296, 32856, 35160, 37888, 40576, 43816, 45352, 46888, 55056],
    [2792, 3624, 4584, 5736, 7224, 8760, 10296, 12216, 14112, 15840, 17568, 19848, 22920, 25456, 28336, 30576, 32856, 36696, 39232, 43816, 46888, 51024, 55056, 57336, 61664, 63776, 75376],
];

/// Target bit error rate of the Shannon-gap mapping (ns-3 `LteAmc::Ber`).
pub const TARGET_BER: f64 = 5e-5;

/// CQI 0..=15 for a SINR in dB.
pub fn cqi(sinr_db: f64) -> usize {
    let gamma = -(5.0 * TARGET_BER).ln() / 1.5;
    let s = (1.0 + 10f64.powf(sinr_db / 10.0) / gamma).log2();
    CQI_EFFICIENCY[1..].iter().take_while(|&&e| e < s).count()
}

/// MCS 0..=28 for CQI 1..=15.
pub fn mcs(cqi: usize) -> usize {
    let e = CQI_EFFICIENCY[cqi];
    MCS_EFFICIENCY[1..].iter().take_while(|&&m| m <= e).count()
}

/// Bits of one 1 ms subframe's transport block at `cqi` over `prbs` PRBs
/// (one of `PRBS`); 0 for CQI 0.
pub fn subframe_bits(cqi: usize, prbs: u32, uplink: bool) -> u32 {
    if cqi == 0 {
        return 0;
    }
    let row = PRBS.iter().position(|&p| p == prbs).expect("a bandwidth of the table (checked at load)");
    let m = mcs(cqi);
    TBS[row][if uplink { ITBS_UL[m] } else { ITBS_DL[m] }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_corners() {
        // CQI 15 → MCS 28 → TBS index 26: 18 336 bits at 5 MHz, 75 376 at 20 MHz (LTE's 75 Mb/s per layer).
        assert_eq!(mcs(15), 28);
        assert_eq!(subframe_bits(15, 25, false), 18336);
        assert_eq!(subframe_bits(15, 100, false), 75376);
        // CQI 1 → MCS 0 → TBS index 0.
        assert_eq!(mcs(1), 0);
        assert_eq!(subframe_bits(1, 25, false), 680);
        // CQI 7 (1.48) → MCS 12 (1.48) → TBS index 11 both ways.
        assert_eq!(mcs(7), 12);
        assert_eq!(subframe_bits(7, 6, true), 1192);
        assert_eq!(subframe_bits(0, 25, false), 0);
    }

    #[test]
    fn sinr_to_cqi_is_monotone_and_saturates() {
        assert_eq!(cqi(-20.0), 0);
        assert_eq!(cqi(40.0), 15);
        let mut last = 0;
        for tenth in -200..400 {
            let c = cqi(tenth as f64 / 10.0);
            assert!(c >= last);
            last = c;
        }
    }
}

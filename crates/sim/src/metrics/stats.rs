//! Summary statistics used across the papers.

/// Jain's fairness index (Σx)² / (n·Σx²); 1 when all equal, 1/n when one takes all.
pub fn jain_index(x: &[f64]) -> Option<f64> {
    if x.is_empty() {
        return None;
    }
    let sum: f64 = x.iter().sum();
    let sumsq: f64 = x.iter().map(|v| v * v).sum();
    if sumsq == 0.0 {
        return None;
    }
    Some(sum * sum / (x.len() as f64 * sumsq))
}

pub fn mean(x: &[f64]) -> Option<f64> {
    (!x.is_empty()).then(|| x.iter().sum::<f64>() / x.len() as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jain() {
        assert_eq!(jain_index(&[1.0, 1.0, 1.0]), Some(1.0));
        assert_eq!(jain_index(&[1.0, 0.0]), Some(0.5));
        assert_eq!(jain_index(&[]), None);
    }
}

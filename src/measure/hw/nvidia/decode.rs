//! A pass's samples decoded from CUPTI's hardware buffer: each whole sample inside a batch's
//! window goes to that job (or to its eviction-only batch), every `stride`-th of them
//! evaluated (MAX_EVALUATED a window at most).
use super::*;

/// Samples per evaluated bundle: their spans and one value per metric each.
pub(super) type Bundle = (Vec<Span>, Vec<Vec<f64>>);

/// What a pass's decode gave each job.
pub(super) struct Picked {
    /// Every sample inside the job's window (for the samples lost between them).
    pub(super) in_window: Vec<Vec<Span>>,
    /// The evaluated ones.
    pub(super) picked: Vec<Bundle>,
    /// The evaluated ones of its eviction-only batch (cold mode).
    pub(super) picked_evict: Vec<Bundle>,
    /// Samples decoded in all.
    pub(super) decoded: usize,
    /// CUPTI said its hardware buffer overflowed.
    pub(super) overflow: bool,
}

impl CuptiBackend {
    /// Decode pass `p`'s samples into its image (`capacity` samples; a full image is
    /// evaluated, emptied and decoded into again) and pick each job's.
    pub(super) fn decode(
        &mut self,
        p: usize,
        capacity: usize,
        (windows, evict_windows): (&[Option<Span>], &[Option<Span>]),
        acc: &[Acc],
        ph: &mut Phases,
    ) -> Result<Picked, String> {
        let e = |e: cupti::CuptiError| e.to_string();
        let iv = self.interval_ns as f64;
        let pass = &mut self.passes[p];
        let stride = |window_ns: f64| {
            ((window_ns / iv).floor().max(1.0) as usize)
                .div_ceil(MAX_EVALUATED)
                .max(1)
        };
        let strides: Vec<usize> = acc.iter().map(|a| stride(a.window_ns)).collect();
        let evict_strides: Vec<usize> = acc.iter().map(|a| stride(a.evict_window_ns)).collect();
        let mut in_window: Vec<Vec<Span>> = vec![Vec::new(); acc.len()];
        let mut picked: Vec<Bundle> = vec![(Vec::new(), Vec::new()); acc.len()];
        let mut in_evict: Vec<usize> = vec![0; acc.len()];
        let mut picked_evict: Vec<Bundle> = vec![(Vec::new(), Vec::new()); acc.len()];
        let mut decoded = 0usize;
        let mut overflow = false;
        let holds = |ws: &[Option<Span>], span: Span| {
            ws.iter()
                .position(|w| w.is_some_and(|w| !inside(&[span], w).is_empty()))
        };
        loop {
            let t = Instant::now();
            let d = self.sampler.decode(&mut pass.image).map_err(e)?;
            overflow |= d.overflow;
            let n = self.sampler.completed(&pass.image).map_err(e)?;
            ph.decode_ns += t.elapsed().as_nanos() as f64;
            let t = Instant::now();
            for i in 0..n {
                let (s0, s1) = self.sampler.sample_time(&pass.image, i).map_err(e)?;
                decoded += 1;
                let span = Span {
                    start: s0 as i128 - self.offset_ns,
                    end: s1 as i128 - self.offset_ns,
                };
                let slot = if let Some(j) = holds(windows, span) {
                    in_window[j].push(span);
                    if !(in_window[j].len() - 1).is_multiple_of(strides[j]) {
                        continue;
                    }
                    &mut picked[j]
                } else if let Some(j) = holds(evict_windows, span) {
                    in_evict[j] += 1;
                    if !(in_evict[j] - 1).is_multiple_of(evict_strides[j]) {
                        continue;
                    }
                    &mut picked_evict[j]
                } else {
                    continue;
                };
                let v = pass.host.evaluate(&pass.image, i, &pass.names).map_err(e)?;
                slot.0.push(span);
                slot.1.push(v);
            }
            ph.evaluate_ns += t.elapsed().as_nanos() as f64;
            // A full image is evaluated, emptied and decoded into again (CUPTI may report a
            // full image as the end of the records).
            if n > 0 && (d.full || n >= capacity) {
                let t = Instant::now();
                self.sampler.reset(&mut pass.image).map_err(e)?;
                ph.image_ns += t.elapsed().as_nanos() as f64;
                continue;
            }
            break;
        }
        Ok(Picked {
            in_window,
            picked,
            picked_evict,
            decoded,
            overflow,
        })
    }
}

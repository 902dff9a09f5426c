//! Host-side resource contents: generating initial data and reading elements back as numbers.
use crate::scenario::{Elem, FileFormat, Init, Resource};
use rand::{Rng, SeedableRng};

/// The initial contents of a resource, tightly packed (images: row-major texels); a file init
/// can fail (the file changed since the scenario loaded), saying which file and why.
pub fn init_bytes(res: &Resource) -> Result<Vec<u8>, String> {
    if let Init::File { path, format } = &res.init {
        let bytes = match format {
            FileFormat::Npy => crate::scenario::npy::read(path).map(|(_, b)| b),
            FileFormat::Png => crate::scenario::npy::read_png(path),
        }
        .map_err(|m| format!("resource `{}`: {}: {m}", res.name, path.display()))?;
        if bytes.len() as u64 != res.bytes() {
            return Err(format!(
                "resource `{}`: {} now holds {} bytes, not the {} it held when the scenario loaded",
                res.name,
                path.display(),
                bytes.len(),
                res.bytes()
            ));
        }
        return Ok(bytes);
    }
    Ok(generate(res))
}

fn generate(res: &Resource) -> Vec<u8> {
    let elem = res.element();
    let n = (res.bytes() / elem.bytes()) as usize;
    let mut out = Vec::with_capacity(res.bytes() as usize);
    match res.init {
        Init::Zero => out.resize(res.bytes() as usize, 0),
        Init::Constant(v) => (0..n).for_each(|_| push(&mut out, elem, v)),
        Init::Ramp { start, step } => {
            (0..n).for_each(|i| push(&mut out, elem, start + step * i as f64))
        }
        Init::Random { seed, min, max } if matches!(elem, Elem::F32 | Elem::F16) => {
            // Large float inits are generated on every core with the same numbers as one
            // stream would give (`random_floats_parallel` below).
            if let Some(v) = random_floats_parallel(seed, min, max, n, elem) {
                out = v;
            } else {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                for _ in 0..n {
                    push(&mut out, elem, float_sample(&mut rng, min, max));
                }
            }
        }
        // Read by init_bytes before it gets here.
        Init::File { .. } => out.resize(res.bytes() as usize, 0),
        Init::Typed { ref bytes, .. } => out.extend_from_slice(bytes),
        Init::Random { seed, min, max } => {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
            for _ in 0..n {
                // Integers: uniform over the whole numbers in [min, max].
                let (lo, hi) = (min.ceil() as i64, max.floor() as i64);
                let v = if hi > lo {
                    rng.gen_range(lo..=hi) as f64
                } else {
                    lo as f64
                };
                push(&mut out, elem, v);
            }
        }
    }
    out.resize(res.bytes() as usize, 0);
    out
}

fn float_sample(rng: &mut rand_chacha::ChaCha8Rng, min: f64, max: f64) -> f64 {
    if max > min {
        rng.gen_range(min..max)
    } else {
        min
    }
}

/// Below this many elements one thread is fast enough.
const PARALLEL_MIN: usize = 1 << 22;

/// The first `n` numbers of the seeded stream, made on every core. A float sample takes one
/// 64-bit draw (two 32-bit words of the ChaCha stream) unless the uniform sampler rejects a
/// value that rounded up to `max`, which is rare but possible; each chunk therefore starts at
/// word 2 x its first index and checks that it ended where the next one begins. If any chunk
/// drew more, the numbers are not the single stream's: None, and the caller makes them on
/// one thread.
fn random_floats_parallel(seed: u64, min: f64, max: f64, n: usize, elem: Elem) -> Option<Vec<u8>> {
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    if n < PARALLEL_MIN || threads < 2 || max <= min {
        return None;
    }
    let per = n.div_ceil(threads);
    let w = elem.bytes() as usize;
    let mut out = vec![0u8; n * w];
    let exact = std::thread::scope(|s| {
        let handles: Vec<_> = out
            .chunks_mut(per * w)
            .enumerate()
            .map(|(c, chunk)| {
                s.spawn(move || {
                    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
                    let start = (c * per) as u128 * 2;
                    rng.set_word_pos(start);
                    let mut bytes = Vec::with_capacity(w);
                    for x in chunk.chunks_exact_mut(w) {
                        bytes.clear();
                        push(&mut bytes, elem, float_sample(&mut rng, min, max));
                        x.copy_from_slice(&bytes);
                    }
                    rng.get_word_pos() == start + (chunk.len() / w) as u128 * 2
                })
            })
            .collect();
        handles.into_iter().all(|h| h.join().unwrap_or(false))
    });
    exact.then_some(out)
}

fn push(out: &mut Vec<u8>, elem: Elem, v: f64) {
    match elem {
        Elem::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        // Integer inits wrap like a C cast would, so ramps past the type's range stay defined.
        Elem::U32 => out.extend_from_slice(&(v as i64 as u32).to_le_bytes()),
        Elem::I32 => out.extend_from_slice(&(v as i64 as i32).to_le_bytes()),
        Elem::F16 => out.extend_from_slice(&half::f16::from_f64(v).to_le_bytes()),
        Elem::U8 => out.push(v as i64 as u8),
    }
}

/// Element `i` of packed contents as a number.
pub fn element(bytes: &[u8], elem: Elem, i: usize) -> f64 {
    let w = elem.bytes() as usize;
    let b = &bytes[i * w..(i + 1) * w];
    match elem {
        Elem::F32 => f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        Elem::U32 => u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        Elem::I32 => i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64,
        Elem::F16 => half::f16::from_le_bytes([b[0], b[1]]).to_f64(),
        Elem::U8 => b[0] as f64,
    }
}

/// Packed contents as f32 values (for CPU references).
pub fn as_f32(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// f32 values packed little-endian.
pub fn from_f32(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::ResourceKind;

    fn buf(element: Elem, count: u64, init: Init) -> Resource {
        Resource {
            name: "b".into(),
            set: 0,
            binding: 0,
            index: 0,
            kind: ResourceKind::Buffer {
                element,
                bytes: count * element.bytes(),
            },
            init,
            output: false,
            key: vec![],
        }
    }

    #[test]
    fn ramp_and_constant() {
        let r = buf(
            Elem::F32,
            4,
            Init::Ramp {
                start: 1.0,
                step: 0.5,
            },
        );
        assert_eq!(as_f32(&init_bytes(&r).unwrap()), vec![1.0, 1.5, 2.0, 2.5]);
        let r = buf(Elem::U32, 3, Init::Constant(7.0));
        let b = init_bytes(&r).unwrap();
        assert_eq!(
            (0..3)
                .map(|i| element(&b, Elem::U32, i))
                .collect::<Vec<_>>(),
            vec![7.0; 3]
        );
        let r = buf(
            Elem::F16,
            2,
            Init::Ramp {
                start: 0.25,
                step: 1.0,
            },
        );
        let b = init_bytes(&r).unwrap();
        assert_eq!(element(&b, Elem::F16, 1), 1.25);
    }

    #[test]
    fn random_is_seeded_and_in_range() {
        let r = buf(
            Elem::F32,
            1000,
            Init::Random {
                seed: 3,
                min: -2.0,
                max: 5.0,
            },
        );
        let a = init_bytes(&r).unwrap();
        assert_eq!(a, init_bytes(&r).unwrap());
        assert!(as_f32(&a).iter().all(|v| (-2.0..5.0).contains(v)));
        let other = buf(
            Elem::F32,
            1000,
            Init::Random {
                seed: 4,
                min: -2.0,
                max: 5.0,
            },
        );
        assert_ne!(a, init_bytes(&other).unwrap());
        let ints = buf(
            Elem::I32,
            500,
            Init::Random {
                seed: 1,
                min: -3.0,
                max: 3.0,
            },
        );
        let b = init_bytes(&ints).unwrap();
        let vals: Vec<f64> = (0..500).map(|i| element(&b, Elem::I32, i)).collect();
        assert!(vals
            .iter()
            .all(|v| (-3.0..=3.0).contains(v) && v.fract() == 0.0));
        assert!(vals.contains(&-3.0) && vals.contains(&3.0));
    }

    #[test]
    fn parallel_random_floats_are_the_single_streams_numbers() {
        let n = PARALLEL_MIN + 12_345;
        for elem in [Elem::F32, Elem::F16] {
            let par = random_floats_parallel(9, -1.0, 3.0, n, elem).expect("parallel");
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(9);
            let mut one = Vec::with_capacity(n * elem.bytes() as usize);
            for _ in 0..n {
                push(&mut one, elem, float_sample(&mut rng, -1.0, 3.0));
            }
            assert!(par == one, "{elem:?}: the parallel stream differs");
        }
        assert!(random_floats_parallel(9, -1.0, 3.0, 100, Elem::F32).is_none());
    }
}

//! The output check on the GPU. Reading back a large output and comparing it on the host
//! leaves the GPU idle (its clocks drop) and costs host time; here a compare shader
//! (glsl/common/p3lab_compare.comp, built into the binary) checks each output against a copy
//! of the baseline's output or the uploaded reference on the device, and only the mismatch
//! count, the first mismatching index, the largest absolute and relative errors and the
//! elements at those three places come back.
//! Same rule as the host check (src/measure/check.rs), evaluated in fp32.
use crate::measure::check::{Contents, ErrorAt, Largest, Outcome};
use crate::scenario::{Case, Check, CheckOn, Elem, OptLevel};
use crate::shader::{CompileRequest, Compiler};
use crate::vk::context::Idle;
use crate::vk::pipeline::{Bindings, DescType, Pipeline, PipelineDesc, SubgroupMode};
use crate::vk::resources::{Buffer, GpuResource};
use crate::vk::submit::Dispatch;
use crate::vk::Context;
use ash::vk;
use gpu_allocator::MemoryLocation;

/// `[check] on = "auto"` checks on the GPU when some checked output is at least this large.
pub const GPU_CHECK_MIN_BYTES: u64 = 1 << 20;
const SHADER: &str = include_str!("../../glsl/common/p3lab_compare.comp");
const RESULT_WORDS: usize = 12;
const NONE: u32 = u32::MAX;

/// Against what a variant's outputs are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Against {
    /// The expected outputs of `[check].reference` (a built-in, a command or files), uploaded to
    /// the device.
    Reference,
    /// The outputs of the `[check].baseline` variant, copied on the device after it ran.
    Baseline,
}

/// Does this case check on the GPU?
pub fn wanted(case: &Case, chk: &Check) -> bool {
    match chk.on {
        CheckOn::Gpu => true,
        CheckOn::Host => false,
        CheckOn::Auto => case
            .resources
            .iter()
            .any(|r| chk.outputs.contains(&r.name) && r.bytes() >= GPU_CHECK_MIN_BYTES),
    }
}

struct Output {
    name: String,
    /// Index into the case's resources.
    resource: usize,
    kind: u32,
    elem: Elem,
    count: u32,
    /// The variant's output, copied here (images row by row; whole words).
    actual: GpuResource,
    result: GpuResource,
    reference: Option<(GpuResource, Bindings)>,
    baseline: Option<(GpuResource, Bindings)>,
}

/// A case's on-device check (`[check].on`, or `auto` with an output of 1 MiB or more): the compare
/// shader's pipeline and, per checked output, the buffers it compares and writes its result to.
pub struct GpuCheck {
    pipeline: Pipeline,
    /// The layout the pipeline was made with (its own bindings, kept for it).
    layout_bindings: Bindings,
    outputs: Vec<Output>,
}

fn kind(e: Elem) -> u32 {
    match e {
        Elem::F32 => 0,
        Elem::U32 => 1,
        Elem::I32 => 2,
        Elem::F16 => 3,
        Elem::U8 => 4,
    }
}

fn storage(ctx: &Context, name: &str, bytes: u64) -> anyhow::Result<GpuResource> {
    // Whole 32-bit words: the shader reads words.
    let bytes = bytes.div_ceil(4).max(1) * 4;
    ctx.create_buffer(
        name,
        bytes,
        vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST,
        MemoryLocation::GpuOnly,
    )
    .map(GpuResource::Buffer)
}

fn buffer(r: &GpuResource) -> &Buffer {
    match r {
        GpuResource::Buffer(b) => b,
        GpuResource::Image(_) => unreachable!("p3lab's check buffers are buffers"),
    }
}

impl GpuCheck {
    /// The compare pipeline and a scratch buffer per checked output. An error (no memory for
    /// the copies, say) means: check on the host instead.
    pub fn new(
        ctx: &Context,
        compiler: &mut Compiler,
        case: &Case,
        chk: &Check,
    ) -> anyhow::Result<GpuCheck> {
        let spirv = compiler
            .compile_text(
                &CompileRequest {
                    path: "p3lab_compare.comp (built in)".into(),
                    defines: Vec::new(),
                    include_dirs: Vec::new(),
                    opt: OptLevel::Performance,
                    entry_point: "main".into(),
                    wrap_groups: false,
                },
                SHADER.to_string(),
            )
            .map_err(|e| anyhow::anyhow!("the built-in compare shader: {e}"))?;
        let mut outputs = Vec::new();
        let mut made: Vec<GpuResource> = Vec::new();
        let result = (|| -> anyhow::Result<()> {
            for (i, r) in case.resources.iter().enumerate() {
                if !chk.outputs.contains(&r.name) {
                    continue;
                }
                let elem = r.element();
                let count = r.bytes() / elem.bytes();
                anyhow::ensure!(count < NONE as u64, "`{}` has too many elements", r.name);
                let actual = storage(ctx, "p3lab-check-actual", r.bytes())?;
                let result = match storage(ctx, "p3lab-check-result", RESULT_WORDS as u64 * 4) {
                    Ok(b) => b,
                    Err(e) => {
                        made.push(actual);
                        return Err(e);
                    }
                };
                outputs.push(Output {
                    name: r.name.clone(),
                    resource: i,
                    kind: kind(elem),
                    elem,
                    count: count as u32,
                    actual,
                    result,
                    reference: None,
                    baseline: None,
                });
            }
            Ok(())
        })();
        let layout_bindings = result.and_then(|_| {
            let o = outputs
                .first()
                .ok_or_else(|| anyhow::anyhow!("no checked output"))?;
            bind(ctx, &o.actual, &o.actual, &o.result)
        });
        let fail = |outputs: Vec<Output>, made: Vec<GpuResource>| {
            let idle = ctx.wait_idle();
            for o in outputs {
                ctx.destroy_resource(o.actual, &idle);
                ctx.destroy_resource(o.result, &idle);
            }
            for m in made {
                ctx.destroy_resource(m, &idle);
            }
        };
        let layout_bindings = match layout_bindings {
            Ok(b) => b,
            Err(e) => {
                fail(outputs, made);
                return Err(e);
            }
        };
        let pipeline = ctx.create_pipeline(&PipelineDesc {
            name: "p3lab-compare",
            spirv: &spirv,
            entry: "main",
            set_layouts: &layout_bindings.layouts,
            push_bytes: 20,
            spec: &[],
            subgroup: SubgroupMode::Default,
            capture_statistics: false,
        });
        match pipeline {
            Ok(pipeline) => Ok(GpuCheck {
                pipeline,
                layout_bindings,
                outputs,
            }),
            Err(e) => {
                let idle = ctx.wait_idle();
                ctx.destroy_bindings(layout_bindings, &idle);
                fail(outputs, made);
                Err(e)
            }
        }
    }

    /// Upload the CPU reference's outputs once.
    pub fn set_reference(&mut self, ctx: &Context, expected: &Contents) -> anyhow::Result<()> {
        for o in &mut self.outputs {
            let Some(bytes) = expected.get(&o.name) else {
                continue;
            };
            let g = storage(ctx, "p3lab-check-reference", bytes.len() as u64)?;
            ctx.upload(&g, bytes)?;
            let b = bind(ctx, &o.actual, &g, &o.result)?;
            o.reference = Some((g, b));
        }
        Ok(())
    }

    /// Keep a copy of the outputs the variant that just ran left in the case's resources: the
    /// baseline every later variant is compared with.
    pub fn set_baseline(&mut self, ctx: &Context, resources: &[GpuResource]) -> anyhow::Result<()> {
        for o in &mut self.outputs {
            let src = &resources[o.resource];
            let g = storage(ctx, "p3lab-check-baseline", buffer(&o.actual).size)?;
            ctx.copy_to_buffer(src, buffer(&g))?;
            let b = bind(ctx, &o.actual, &g, &o.result)?;
            o.baseline = Some((g, b));
        }
        Ok(())
    }

    /// Whether any output has expected values of that kind on the device yet.
    pub fn has(&self, against: Against) -> bool {
        self.outputs.iter().any(|o| match against {
            Against::Reference => o.reference.is_some(),
            Against::Baseline => o.baseline.is_some(),
        })
    }

    /// Compare the outputs now in the case's resources with the reference or the baseline.
    pub fn compare(
        &self,
        ctx: &Context,
        chk: &Check,
        resources: &[GpuResource],
        against: Against,
        timeout_ms: u64,
    ) -> anyhow::Result<Outcome> {
        let mut details = Vec::new();
        let mut passed = true;
        for o in &self.outputs {
            let golden = match against {
                Against::Reference => &o.reference,
                Against::Baseline => &o.baseline,
            };
            let Some((_, bindings)) = golden else {
                details.push(format!("{}: no expected value", o.name));
                continue;
            };
            ctx.copy_to_buffer(&resources[o.resource], buffer(&o.actual))?;
            let mut init = [0u32; RESULT_WORDS];
            // The first mismatch and where the largest errors are: none yet.
            init[1] = NONE;
            init[6] = NONE;
            init[7] = NONE;
            ctx.upload(&o.result, &words_to_bytes(&init))?;
            let groups = o.count.div_ceil(256).clamp(1, 4096);
            let push_for = |mode: u32| {
                let mut p = Vec::with_capacity(20);
                p.extend_from_slice(&o.count.to_le_bytes());
                p.extend_from_slice(&o.kind.to_le_bytes());
                p.extend_from_slice(&(chk.tolerance as f32).to_le_bytes());
                p.extend_from_slice(&(chk.rel_tolerance as f32).to_le_bytes());
                p.extend_from_slice(&mode.to_le_bytes());
                p
            };
            let (scan, locate, report) = (push_for(0), push_for(2), push_for(1));
            let passes = [
                (groups, scan.as_slice()),
                (groups, locate.as_slice()),
                (1, report.as_slice()),
            ]
            .map(|(grid, push)| Dispatch {
                pipeline: self.pipeline.pipeline,
                layout: self.pipeline.layout,
                sets: &bindings.sets,
                grid: [grid, 1, 1],
                push,
            });
            ctx.run_once(&passes, timeout_ms)?;
            let r = ctx.download(&o.result)?;
            let w = |i: usize| u32::from_le_bytes(r[4 * i..4 * i + 4].try_into().expect("4"));
            let (bad, first, max_err) = (w(0), w(1), f32::from_bits(w(2)) as f64);
            if bad > 0 {
                passed = false;
                // The largest errors as the shader found them (fp32), where it found them.
                let at = |index: u32, error: u32, got: u32, want: u32| {
                    (index != NONE).then(|| ErrorAt {
                        index: index as usize,
                        error: f32::from_bits(error) as f64,
                        got: value(o.elem, got),
                        expected: value(o.elem, want),
                    })
                };
                let largest = Largest {
                    abs: at(w(6), w(2), w(8), w(9)),
                    rel: at(w(7), w(5), w(10), w(11)),
                };
                details.push(format!(
                    "{}: {bad} of {} differ, first at [{first}]: got {}, expected {}{} (checked on the GPU)",
                    o.name,
                    o.count,
                    value(o.elem, w(3)),
                    value(o.elem, w(4)),
                    largest.detail(chk)
                ));
            } else if max_err == 0.0 {
                details.push(format!("{}: exact (checked on the GPU)", o.name));
            } else {
                details.push(format!(
                    "{}: max_abs_err={max_err:e} (checked on the GPU)",
                    o.name
                ));
            }
        }
        Ok(Outcome {
            passed,
            detail: details.join("; "),
        })
    }

    /// Destroy the compare pipeline, its bindings and every output's buffers; `idle`: no pending
    /// submission uses them.
    pub fn destroy(self, ctx: &Context, idle: &Idle) {
        ctx.destroy_pipeline(self.pipeline, idle);
        ctx.destroy_bindings(self.layout_bindings, idle);
        for o in self.outputs {
            ctx.destroy_resource(o.actual, idle);
            ctx.destroy_resource(o.result, idle);
            for (g, b) in [o.reference, o.baseline].into_iter().flatten() {
                ctx.destroy_bindings(b, idle);
                ctx.destroy_resource(g, idle);
            }
        }
    }

    /// Leave everything with a device that is being abandoned.
    pub fn abandon(self) {
        std::mem::forget(self);
    }
}

/// Descriptor sets for (actual, expected, result) at set 0, bindings 0-2.
fn bind(
    ctx: &Context,
    actual: &GpuResource,
    expected: &GpuResource,
    result: &GpuResource,
) -> anyhow::Result<Bindings> {
    ctx.create_bindings(&[
        (0, 0, 0, DescType::StorageBuffer, actual),
        (0, 1, 0, DescType::StorageBuffer, expected),
        (0, 2, 0, DescType::StorageBuffer, result),
    ])
}

fn words_to_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// An element's value from its bits, printed as the host check prints it.
fn value(e: Elem, bits: u32) -> f64 {
    match e {
        Elem::F32 => f32::from_bits(bits) as f64,
        Elem::U32 | Elem::U8 => bits as f64,
        Elem::I32 => bits as i32 as f64,
        Elem::F16 => half::f16::from_bits(bits as u16).to_f64(),
    }
}

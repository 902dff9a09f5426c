//! The terminal: when to colour, log lines that go through the progress bar (so the two never
//! interleave), concise lines at the default level, and the bar with its ETA.
use crate::cli::ColorChoice;
use crate::output::ansi;
use std::io::{IsTerminal, Write};
use std::sync::{Mutex, OnceLock};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::{FormatEvent, FormatFields, Writer};
use tracing_subscriber::fmt::time::FormatTime;
use tracing_subscriber::fmt::FmtContext;
use tracing_subscriber::registry::LookupSpan;

/// Whether to colour a stream: `--color always|never` decide; under `auto`, a non-empty
/// `NO_COLOR` turns colour off, then a `CLICOLOR_FORCE` that is non-empty and not `0` turns it
/// on, else the stream must be a terminal (the order of anstream and no-color.org).
pub fn use_color(
    choice: ColorChoice,
    is_terminal: bool,
    no_color: Option<&str>,
    clicolor_force: Option<&str>,
) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if no_color.is_some_and(|v| !v.is_empty()) {
                false
            } else if clicolor_force.is_some_and(|v| !v.is_empty() && v != "0") {
                true
            } else {
                is_terminal
            }
        }
    }
}

static CHOICE: OnceLock<ColorChoice> = OnceLock::new();

/// `use_color` for a stream, with `--color` (set once by [`init`]) and the environment.
fn color_for(is_terminal: bool) -> bool {
    let env = |k: &str| std::env::var(k).ok();
    use_color(
        CHOICE.get().copied().unwrap_or_default(),
        is_terminal,
        env("NO_COLOR").as_deref(),
        env("CLICOLOR_FORCE").as_deref(),
    )
}

/// Colour on stderr (logs, the final status lines).
pub fn stderr_color() -> bool {
    color_for(std::io::stderr().is_terminal())
}

/// Colour on stdout (the run's summary).
pub fn stdout_color() -> bool {
    color_for(std::io::stdout().is_terminal())
}

/// Set up logging: `--color`, the level from -v/-q (RUST_LOG overrides), and the format:
/// at the default level (and with -q) one line per event with no time or target, warnings
/// and errors prefixed; with -v a local time, the level and the target.
pub fn init(verbose: u8, quiet: bool, choice: ColorChoice) {
    let _ = CHOICE.set(choice);
    let default = if quiet {
        "warn"
    } else {
        match verbose {
            0 => "info",
            1 => "debug",
            _ => "trace",
        }
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let color = stderr_color();
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| BarWriter)
        .with_ansi(color);
    if verbose == 0 {
        builder.event_format(Concise).init();
    } else {
        builder.with_timer(LocalTime).with_target(true).init();
    }
}

/// `HH:MM:SS.mmm` local time, for -v.
struct LocalTime;

impl FormatTime for LocalTime {
    fn format_time(&self, w: &mut Writer<'_>) -> std::fmt::Result {
        write!(w, "{}", chrono::Local::now().format("%H:%M:%S%.3f"))
    }
}

/// The default format: the message alone for info, `warning: ` / `error: ` before the others.
struct Concise;

impl<S, N> FormatEvent<S, N> for Concise
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut w: Writer<'_>,
        event: &Event<'_>,
    ) -> std::fmt::Result {
        let color = w.has_ansi_escapes();
        let prefix = match *event.metadata().level() {
            Level::ERROR => ansi::paint(color, ansi::RED_BOLD, "error:"),
            Level::WARN => ansi::paint(color, ansi::YELLOW_BOLD, "warning:"),
            Level::INFO => String::new(),
            Level::DEBUG => ansi::paint(color, ansi::BLUE, "debug:"),
            Level::TRACE => ansi::paint(color, ansi::DIM, "trace:"),
        };
        if !prefix.is_empty() {
            write!(w, "{prefix} ")?;
        }
        ctx.field_format().format_fields(w.by_ref(), event)?;
        writeln!(w)
    }
}

/// The progress bar being drawn, if any: log lines are written with it suspended.
static BAR: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);

/// Run `f` (which writes to stderr) with the progress bar, if one is drawn, taken off the
/// screen and redrawn after it.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let bar = BAR.lock().ok().and_then(|b| b.clone());
    match bar {
        Some(b) if !b.is_hidden() => b.suspend(f),
        _ => f(),
    }
}

/// A line on stderr that does not break the progress bar (Ctrl-C notices).
pub fn eprint_line(line: &str) {
    suspend(|| {
        let mut e = std::io::stderr().lock();
        let _ = writeln!(e, "{line}");
    });
}

/// tracing's writer: each event is formatted whole and written in one call, with the bar
/// suspended around it.
struct BarWriter;

impl Write for BarWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        suspend(|| std::io::stderr().lock().write_all(buf))?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

/// The run's progress bar, drawn on stderr when it is a terminal (hidden otherwise). Its
/// position counts `UNITS` per variant (crate::measure::runner::PROGRESS_UNITS), its check
/// earning a share (`CHECK_UNITS`) and its rounds the rest, so a variant being checked or
/// part-way through its rounds moves it; it shows variants done of those selected, the elapsed
/// time and an ETA. Dropping it clears the bar.
pub struct Progress {
    bar: indicatif::ProgressBar,
    /// Off a terminal, the thread that logs a progress line now and then.
    ticker: Option<Ticker>,
}

/// How often a run whose stderr is no terminal logs a progress line: every 30 s, or every
/// `P3LAB_PROGRESS_SECS` seconds (a float; `0` turns the lines off).
const PROGRESS_EVERY_S: f64 = 30.0;

fn progress_every() -> Option<std::time::Duration> {
    let s = std::env::var("P3LAB_PROGRESS_SECS")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .unwrap_or(PROGRESS_EVERY_S);
    (s > 0.0).then(|| std::time::Duration::from_secs_f64(s))
}

/// A thread that logs [`progress_line`] every `every` until dropped.
struct Ticker {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    fn start(bar: indicatif::ProgressBar, every: std::time::Duration) -> Ticker {
        let (stop, wait) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("p3lab-progress".into())
            .spawn(move || {
                while let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(every)
                {
                    tracing::info!(
                        "{}",
                        progress_line(
                            &bar.message(),
                            bar.position(),
                            bar.length().unwrap_or(0),
                            bar.elapsed().as_secs_f64(),
                        )
                    );
                }
            })
            .ok();
        Ticker {
            stop: Some(stop),
            thread,
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        // Dropping the sender wakes the thread at once.
        self.stop.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The line a log off a terminal gets every 30 s:
/// `progress: tiling / tilex8-wg16x8 (round 3): 41/130 variants, 2m05s elapsed, ETA 4m27s`
/// (`pos` and `len` in the bar's units, PROGRESS_UNITS per variant).
pub fn progress_line(what: &str, pos: u64, len: u64, elapsed_s: f64) -> String {
    use crate::measure::runner::PROGRESS_UNITS as UNITS;
    let what = if what.is_empty() { "starting" } else { what };
    format!(
        "progress: {what}: {}/{} variants, {} elapsed, ETA {}",
        pos / UNITS,
        len / UNITS,
        duration_text(elapsed_s.max(0.0).round() as u64),
        eta_text(pos, len, elapsed_s)
    )
}

impl Progress {
    /// A bar for `variants` variants (hidden when stderr is not a terminal: the ticker's log
    /// lines report progress there instead).
    pub fn new(variants: u64) -> Progress {
        use crate::measure::runner::PROGRESS_UNITS as UNITS;
        // `--device all` starts one worker per device on the same terminal: with several, their
        // bars would overwrite each other, so the parent asks them for none (P3LAB_NO_BAR).
        let wanted = std::env::var_os("P3LAB_NO_BAR").is_none_or(|v| v.is_empty());
        let bar = if wanted && std::io::stderr().is_terminal() {
            let pb = indicatif::ProgressBar::new(variants * UNITS);
            // `wide_msg` takes what is left of the line and is cut there: the bar never
            // wraps, so it is always redrawn in place.
            let template = if stderr_color() {
                "{bar:24.cyan/blue} {done}/{total} variants  {elapsed} elapsed, ETA {left}  {wide_msg}"
            } else {
                "{bar:24} {done}/{total} variants  {elapsed} elapsed, ETA {left}  {wide_msg}"
            };
            let style = indicatif::ProgressStyle::with_template(template)
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                .with_key(
                    "done",
                    |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{}", s.pos() / UNITS);
                    },
                )
                .with_key(
                    "total",
                    |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = write!(w, "{}", s.len().unwrap_or(0) / UNITS);
                    },
                )
                .with_key(
                    "left",
                    |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                        let _ = w.write_str(&eta_text(
                            s.pos(),
                            s.len().unwrap_or(0),
                            s.elapsed().as_secs_f64(),
                        ));
                    },
                );
            pb.set_style(style);
            // Redrawn (elapsed, ETA) while a long batch or check runs.
            pb.enable_steady_tick(std::time::Duration::from_millis(250));
            pb
        } else {
            // Not drawn, but counting (the progress lines below read it).
            indicatif::ProgressBar::with_draw_target(
                Some(variants * UNITS),
                indicatif::ProgressDrawTarget::hidden(),
            )
        };
        if let Ok(mut b) = BAR.lock() {
            *b = Some(bar.clone());
        }
        // No bar drawn (stderr is a file or a pipe, or a `--device all` worker): a line now
        // and then instead, so a redirected log shows how far the run is.
        let ticker = bar
            .is_hidden()
            .then(progress_every)
            .flatten()
            .map(|every| Ticker::start(bar.clone(), every));
        Progress { bar, ticker }
    }

    /// The bar itself, for the runner to move (a handle to the same bar).
    pub fn bar(&self) -> indicatif::ProgressBar {
        self.bar.clone()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.ticker.take();
        if let Ok(mut b) = BAR.lock() {
            *b = None;
        }
        self.bar.finish_and_clear();
    }
}

/// The time left at the average rate so far: elapsed × (total − done) / done; `?` before
/// anything is done.
pub fn eta_text(pos: u64, len: u64, elapsed_s: f64) -> String {
    if pos == 0 || len == 0 {
        return "?".into();
    }
    let left = elapsed_s * len.saturating_sub(pos) as f64 / pos as f64;
    duration_text(left.round() as u64)
}

/// `42s`, `1m30s`, `1h06m`.
fn duration_text(s: u64) -> String {
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else if s >= 60 {
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{s}s")
    }
}

/// `5 ok, 1 unsupported`, coloured by status when `color`.
pub fn status_counts(rows: &std::collections::BTreeMap<String, u64>, color: bool) -> String {
    rows.iter()
        .map(|(k, v)| {
            let text = format!("{v} {k}");
            let style = match k.as_str() {
                "ok" => ansi::GREEN,
                "unsupported" => ansi::YELLOW,
                _ => ansi::RED,
            };
            ansi::paint(color, style, &text)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_follows_the_terminal_no_color_and_clicolor_force() {
        use ColorChoice::*;
        assert!(use_color(Auto, true, None, None));
        assert!(!use_color(Auto, false, None, None));
        // NO_COLOR: any non-empty value turns colour off, even on a terminal and over
        // CLICOLOR_FORCE; empty means unset.
        assert!(!use_color(Auto, true, Some("1"), None));
        assert!(!use_color(Auto, true, Some("0"), Some("1")));
        assert!(use_color(Auto, true, Some(""), None));
        // CLICOLOR_FORCE: non-empty and not 0 forces it into a file or pipe.
        assert!(use_color(Auto, false, None, Some("1")));
        assert!(!use_color(Auto, false, None, Some("0")));
        assert!(!use_color(Auto, false, None, Some("")));
        // --color decides over the environment.
        assert!(use_color(Always, false, Some("1"), None));
        assert!(!use_color(Never, true, None, Some("1")));
    }

    #[test]
    fn eta_is_the_average_rate_so_far() {
        assert_eq!(eta_text(0, 10, 5.0), "?");
        assert_eq!(eta_text(5, 10, 5.0), "5s");
        assert_eq!(eta_text(1, 10, 10.0), "1m30s");
        assert_eq!(eta_text(1, 400, 10.0), "1h06m");
        assert_eq!(eta_text(10, 10, 7.0), "0s");
    }

    #[test]
    fn a_progress_line_names_the_work_the_count_and_the_eta() {
        use crate::measure::runner::PROGRESS_UNITS as U;
        assert_eq!(
            progress_line(
                "tiling / morton-wg8x8 (round 2)",
                41 * U + U / 2,
                130 * U,
                125.4
            ),
            "progress: tiling / morton-wg8x8 (round 2): 41/130 variants, 2m05s elapsed, ETA 4m27s"
        );
        assert_eq!(
            progress_line("", 0, 12 * U, 0.2),
            "progress: starting: 0/12 variants, 0s elapsed, ETA ?"
        );
    }
}

//! Temporary files and folders p3lab makes on its way to an output (a file written beside its
//! target and renamed into place, a merge's or a baseline's staging folder, an output folder
//! moved aside while its replacement moves in, the built-in files being unpacked):
//!
//! - **Registered while they exist**, so an interrupt (SIGINT, SIGTERM, SIGHUP; the handler is
//!   set by `app`) undoes them before the process exits: [`undo_all`] removes every temporary
//!   and puts back a folder that was moved aside. Creating or moving one happens with the
//!   registry locked, and [`undo_all`] keeps it locked until the process is gone, so nothing
//!   is created after the clean-up ran.
//! - **Removed on every other way out** by their guards ([`Temp`], [`MovedAside`]): an error,
//!   a panic that unwinds, or the normal end, where a temporary has been renamed into place.
//! - **Recognised by name afterwards**: one a killed process left (SIGKILL, a power cut) is
//!   removed by the next p3lab that writes there, once the process id in its name is not
//!   running on this machine and nothing in it changed for [`STALE_AFTER`] ([`remove_stale`]).
//!   The delay spares a p3lab on another machine writing into a shared folder.
//!
//! A leaf: it uses no other module of the crate.
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// What undoes one registered step.
enum Undo {
    /// A temporary file or folder: removed.
    Remove(PathBuf),
    /// `target` moved to `aside`: moved back when `target` is absent (the replacement never
    /// arrived), else `aside` is removed.
    PutBack { aside: PathBuf, target: PathBuf },
}

impl Undo {
    fn apply(&self) {
        match self {
            Undo::Remove(p) => remove_any(p),
            Undo::PutBack { aside, target } => put_back(aside, target),
        }
    }
}

/// Every step not yet finished, by registration number.
static PENDING: Mutex<Vec<(u64, Undo)>> = Mutex::new(Vec::new());

fn pending() -> MutexGuard<'static, Vec<(u64, Undo)>> {
    PENDING.lock().unwrap_or_else(|e| e.into_inner())
}

fn register(list: &mut Vec<(u64, Undo)>, undo: Undo) -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    list.push((id, undo));
    id
}

fn forget(id: u64) {
    pending().retain(|(i, _)| *i != id);
}

/// Remove a file, a link (never followed) or a folder with everything in it; one that is
/// gone already is fine. A folder a writer is still filling is retried a few times.
fn remove_any(p: &Path) {
    for _ in 0..5 {
        let gone = match fs::symlink_metadata(p) {
            Err(_) => return,
            Ok(m) if m.is_dir() => fs::remove_dir_all(p),
            Ok(_) => fs::remove_file(p),
        };
        if gone.is_ok() {
            return;
        }
    }
}

fn put_back(aside: &Path, target: &Path) {
    if fs::symlink_metadata(aside).is_err() {
        return;
    }
    if fs::symlink_metadata(target).is_err() && fs::rename(aside, target).is_ok() {
        return;
    }
    remove_any(aside);
}

/// Undo every registered step now (an interrupt): temporaries removed, folders moved aside
/// put back. The registry stays locked, so no thread creates another temporary before the
/// process exits; call this only on the way out.
pub fn undo_all() {
    let mut list = pending();
    for (_, undo) in list.drain(..).rev() {
        undo.apply();
    }
    // Held until the process is gone (an exit does not unwind other threads).
    std::mem::forget(list);
}

/// A temporary file or folder: registered from its creation, removed when dropped unless
/// [`Temp::keep`] says it has been renamed into place.
#[must_use]
pub struct Temp {
    id: u64,
    path: PathBuf,
    armed: bool,
}

impl Temp {
    /// Create the file `path`, which must not exist (a link is not followed), open for
    /// writing.
    pub fn create_file(path: &Path) -> std::io::Result<(Temp, File)> {
        let mut list = pending();
        let f = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(path)?;
        let id = register(&mut list, Undo::Remove(path.to_path_buf()));
        Ok((Temp::armed(id, path), f))
    }

    /// Create the folder `path` (its parent must exist; `path` must not).
    pub fn create_dir(path: &Path) -> std::io::Result<Temp> {
        let mut list = pending();
        fs::create_dir(path)?;
        let id = register(&mut list, Undo::Remove(path.to_path_buf()));
        Ok(Temp::armed(id, path))
    }

    fn armed(id: u64, path: &Path) -> Temp {
        Temp {
            id,
            path: path.to_path_buf(),
            armed: true,
        }
    }

    /// The temporary's path, where it was created (and where it is removed from unless kept).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The temporary is no longer one (renamed into place): forget it, remove nothing.
    pub fn keep(mut self) {
        self.armed = false;
        forget(self.id);
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if self.armed {
            // Removed while still registered: an interrupt meanwhile removes it too.
            remove_any(&self.path);
            forget(self.id);
        }
    }
}

/// A folder moved aside while a new one takes its place: put back if the process is
/// interrupted (or this is dropped) before the new one arrived.
#[must_use]
pub struct MovedAside {
    id: u64,
    aside: PathBuf,
    target: PathBuf,
    done: bool,
}

impl MovedAside {
    /// Rename `target` to `aside`.
    pub fn new(target: &Path, aside: &Path) -> std::io::Result<MovedAside> {
        let mut list = pending();
        fs::rename(target, aside)?;
        let id = register(
            &mut list,
            Undo::PutBack {
                aside: aside.to_path_buf(),
                target: target.to_path_buf(),
            },
        );
        Ok(MovedAside {
            id,
            aside: aside.to_path_buf(),
            target: target.to_path_buf(),
            done: false,
        })
    }

    /// The new folder is in place: remove the old one.
    pub fn discard(mut self) -> std::io::Result<()> {
        self.done = true;
        // Still registered: an interrupt now finds `target` there and removes `aside`.
        let gone = fs::remove_dir_all(&self.aside);
        forget(self.id);
        gone
    }

    /// The new folder did not arrive: move the old one back.
    pub fn put_back(mut self) {
        self.done = true;
        put_back(&self.aside, &self.target);
        forget(self.id);
    }
}

impl Drop for MovedAside {
    fn drop(&mut self) {
        if !self.done {
            put_back(&self.aside, &self.target);
            forget(self.id);
        }
    }
}

/// How long a temporary of a process that is gone must have been left untouched before
/// another p3lab removes it (see the module's text).
pub const STALE_AFTER: Duration = Duration::from_secs(60);

/// Whether process `pid` runs on this machine; true where that cannot be told (no `/proc`),
/// so nothing is removed there.
pub fn pid_alive(pid: u32) -> bool {
    if !Path::new("/proc/self").exists() {
        return true;
    }
    pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists()
}

/// The process id in a temporary's name: the digits `rest` starts with, up to its end or a
/// `-`.
pub fn pid_in(rest: &str) -> Option<u32> {
    let digits = rest.split('-').next()?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The newest modification time of `p` and, for a folder, of what it holds directly.
fn last_touched(p: &Path) -> Option<std::time::SystemTime> {
    let m = fs::symlink_metadata(p).ok()?;
    let mut t = m.modified().ok()?;
    if m.is_dir() {
        for e in fs::read_dir(p).ok()?.flatten() {
            if let Ok(x) = e.metadata().and_then(|m| m.modified()) {
                t = t.max(x);
            }
        }
    }
    Some(t)
}

/// Remove the temporaries a killed p3lab left in `dir`: each entry for which `pid_of` gives
/// a process id (from its name) that is not running here, and which nothing touched for
/// [`STALE_AFTER`]. With `put_back_to`, an entry is a folder moved aside: it goes back to
/// that path when nothing is there, and is removed otherwise. Returns how many were undone.
pub fn remove_stale(
    dir: &Path,
    pid_of: impl Fn(&str) -> Option<u32>,
    put_back_to: Option<&Path>,
) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    let now = std::time::SystemTime::now();
    let mut undone = 0;
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(&pid_of) else {
            continue;
        };
        if pid_alive(pid) {
            continue;
        }
        let p = e.path();
        let quiet = last_touched(&p)
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age >= STALE_AFTER);
        if !quiet {
            continue;
        }
        match put_back_to {
            Some(target) => put_back(&p, target),
            None => remove_any(&p),
        }
        tracing::info!(
            "removed {} (left by process {pid}, which is gone)",
            p.display()
        );
        undone += 1;
    }
    undone
}

/// Test hook: with `P3LAB_TEST_SLOW_WRITE_MS` set, writers pause this long part-way through an
/// output (a half-written temporary on disk), so a test's signal lands while it is there.
/// Unset (always, outside tests), it does nothing.
pub fn test_pause() {
    static MS: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    let ms = *MS.get_or_init(|| {
        std::env::var("P3LAB_TEST_SLOW_WRITE_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    });
    if ms > 0 {
        std::thread::sleep(Duration::from_millis(ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backdate(p: &Path) {
        let old = std::time::SystemTime::now() - STALE_AFTER - Duration::from_secs(5);
        File::open(p).unwrap().set_modified(old).unwrap();
    }

    #[test]
    fn temporaries_go_on_drop_unless_kept_and_undo_all_would_remove_them() {
        let t = tempfile::tempdir().unwrap();
        let (tmp, _f) = Temp::create_file(&t.path().join(".a.tmp")).unwrap();
        assert!(tmp.path().exists());
        let p = tmp.path().to_path_buf();
        drop(tmp);
        assert!(!p.exists(), "removed on drop");
        let d = Temp::create_dir(&t.path().join(".d")).unwrap();
        fs::write(d.path().join("x"), b"x").unwrap();
        fs::rename(d.path(), t.path().join("d")).unwrap();
        d.keep();
        assert!(t.path().join("d/x").exists(), "kept");
        // Moved aside and dropped before the new one came: back in place.
        let aside = MovedAside::new(&t.path().join("d"), &t.path().join(".d.old")).unwrap();
        assert!(!t.path().join("d").exists());
        drop(aside);
        assert!(t.path().join("d/x").exists(), "put back");
        // Nothing of this test is still registered (other tests may have their own).
        let ours = |u: &Undo| match u {
            Undo::Remove(p) => p.starts_with(t.path()),
            Undo::PutBack { aside, .. } => aside.starts_with(t.path()),
        };
        assert!(!pending().iter().any(|(_, u)| ours(u)));
    }

    #[test]
    fn stale_temporaries_of_gone_processes_only_are_removed() {
        let t = tempfile::tempdir().unwrap();
        let me = std::process::id();
        // 99999999 is over any pid_max (2^22), so never a running process.
        let dead = t.path().join(".x.tmp-99999999-0");
        let alive = t.path().join(format!(".x.tmp-{me}-0"));
        let fresh = t.path().join(".x.tmp-99999998-1");
        let other = t.path().join(".y.tmp-99999999-0");
        for p in [&dead, &alive, &fresh, &other] {
            fs::write(p, b"part").unwrap();
        }
        for p in [&dead, &alive, &other] {
            backdate(p);
        }
        let pid_of = |n: &str| n.strip_prefix(".x.tmp-").and_then(pid_in);
        if !Path::new("/proc/self").exists() {
            return;
        }
        assert_eq!(remove_stale(t.path(), pid_of, None), 1);
        assert!(!dead.exists());
        assert!(alive.exists() && fresh.exists() && other.exists());
        assert_eq!(pid_in("123-4"), Some(123));
        assert_eq!(pid_in("12x"), None);
    }
}

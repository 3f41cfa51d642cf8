//! A scoped panic hook that keeps [`StopSignal`] out of the terminal.
//!
//! loom cannot be asked to stop between executions, so an exploration that is done ends its
//! model with a [`StopSignal`] panic that the driver catches; the suspended threads of that
//! execution are then unwound by loom's coroutine library with a panic of its own. While at least one drive is
//! under way, a hook forwards every other panic to the hook that was there before; when the
//! last one ends, that hook is put back, so the library leaves no process-wide hook behind.

#![cfg_attr(not(loom), allow(dead_code))]

use std::panic::{self, PanicHookInfo};
use std::sync::Mutex;

/// Payload of the panic that stops a loom model early; never shown to users.
#[derive(Debug)]
pub(crate) struct StopSignal;

/// Our stop signal, or the control-flow panic with which loom's coroutine library unwinds
/// the stacks of the threads of an execution that was stopped early.
fn is_stop_machinery(info: &PanicHookInfo<'_>) -> bool {
    info.payload().downcast_ref::<StopSignal>().is_some()
        || info
            .location()
            .is_some_and(|l| l.file().contains("/generator-") && l.file().ends_with("yield_.rs"))
}

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Sync + Send + 'static>;

/// Drives under way, and the hook to restore when the last one ends.
static ACTIVE: Mutex<(usize, Option<std::sync::Arc<Hook>>)> = Mutex::new((0, None));

/// While alive, [`StopSignal`] panics are silent.
pub(crate) struct Quiet(());

impl Quiet {
    /// Install the quiet hook (or count one more user of it).
    pub(crate) fn install() -> Self {
        let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
        if active.0 == 0 {
            let previous = std::sync::Arc::new(panic::take_hook());
            let forward = std::sync::Arc::clone(&previous);
            panic::set_hook(Box::new(move |info| {
                if !is_stop_machinery(info) {
                    forward(info);
                }
            }));
            active.1 = Some(previous);
        }
        active.0 += 1;
        Quiet(())
    }
}

impl Drop for Quiet {
    fn drop(&mut self) {
        let mut active = ACTIVE.lock().unwrap_or_else(|e| e.into_inner());
        active.0 -= 1;
        if active.0 == 0 {
            if let Some(previous) = active.1.take() {
                // The quiet hook holds the other reference; drop it first.
                drop(panic::take_hook());
                if let Ok(hook) = std::sync::Arc::try_unwrap(previous) {
                    panic::set_hook(hook);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hook_is_restored_when_the_last_drive_ends() {
        // A marker hook, to see that it comes back.
        static SEEN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let before = panic::take_hook();
        panic::set_hook(Box::new(|_| {
            SEEN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }));
        {
            let _a = Quiet::install();
            let _b = Quiet::install();
            let _ = std::panic::catch_unwind(|| std::panic::panic_any(StopSignal));
            assert_eq!(SEEN.load(std::sync::atomic::Ordering::SeqCst), 0);
            let _ = std::panic::catch_unwind(|| panic!("forwarded"));
            assert_eq!(SEEN.load(std::sync::atomic::Ordering::SeqCst), 1);
        }
        let _ = std::panic::catch_unwind(|| std::panic::panic_any(StopSignal));
        assert_eq!(SEEN.load(std::sync::atomic::Ordering::SeqCst), 2);
        panic::set_hook(before);
    }
}

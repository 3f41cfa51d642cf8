//! The uniformly random scheduler (`--engine random`).

use ::shuttle::scheduler::{Schedule as ShuttleSchedule, Scheduler, Task, TaskId};

/// Uniformly random choices from a SplitMix64 stream. shuttle's `RandomScheduler` reads
/// `SHUTTLE_RANDOM_SEED` from the environment and prints its seed to stderr whenever an
/// exploration stops early; this one does neither, so a seed means the same run everywhere.
pub(super) struct Uniform {
    pub(super) state: u64,
    pub(super) left: usize,
}

impl Uniform {
    fn next(&mut self) -> u64 {
        crate::engine::splitmix64(&mut self.state)
    }
}

impl Scheduler for Uniform {
    fn new_execution(&mut self) -> Option<ShuttleSchedule> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        Some(ShuttleSchedule::new(self.state))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        _current: Option<TaskId>,
        _is_yielding: bool,
    ) -> Option<TaskId> {
        let len = u64::try_from(runnable.len()).unwrap_or(u64::MAX);
        let pick = usize::try_from(self.next() % len).unwrap_or(0);
        Some(runnable[pick].id())
    }

    fn next_u64(&mut self) -> u64 {
        self.next()
    }
}

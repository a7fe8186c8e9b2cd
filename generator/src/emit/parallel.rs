//! Emitting on every core. Token streams are neither `Send` nor `Sync`, so each job renders its
//! own tokens from the shared, read-only IR and plans (plain data) and hands back only text.
//! Output never depends on how many threads ran: jobs are cut by item count, and results come
//! back in job order.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;

/// A piece of emitting work for [`run`], [`spread`] or [`in_turn`]: it may borrow the IR (`'a`)
/// and must be sendable to another thread, so it returns text (or other `Send` data), not tokens.
pub type Job<'a, T> = Box<dyn FnOnce() -> T + Send + 'a>;

/// Items per job when one file is printed in parts: large enough that a job's fixed cost is small,
/// small enough that a large file spreads over the cores.
pub const ITEMS_PER_JOB: usize = 150;

/// Types plus operations from which a document's crates are emitted side by side on threads.
pub const SIDE_BY_SIDE_FROM: usize = 50;

/// Runs the jobs on up to `available_parallelism` threads (first come, first served, so put the
/// longest first) and returns their results in job order. A panic in a job is raised again here.
/// `items` is how many types or operations the jobs cover together: below [`ITEMS_PER_JOB`] they
/// run on this thread, since starting threads would cost more than it saves.
pub fn run<T: Send>(items: usize, jobs: Vec<Job<'_, T>>) -> Vec<T> {
    if items < ITEMS_PER_JOB {
        return in_turn(jobs);
    }
    spread(jobs)
}

/// The jobs one after the other on this thread.
pub fn in_turn<T>(jobs: Vec<Job<'_, T>>) -> Vec<T> {
    jobs.into_iter().map(|job| job()).collect()
}

/// [`run`] whatever the jobs cover: on up to `available_parallelism` threads (asked only here, as
/// the answer reads the process's cgroup files), in job order.
pub fn spread<T: Send>(jobs: Vec<Job<'_, T>>) -> Vec<T> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len());
    if threads <= 1 {
        return in_turn(jobs);
    }
    let count = jobs.len();
    let queue = Mutex::new(jobs.into_iter().enumerate().rev().collect::<Vec<_>>());
    let done = Mutex::new(Vec::with_capacity(count));
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                loop {
                    let next = queue.lock().expect("queue lock").pop();
                    let Some((index, job)) = next else { break };
                    let result = catch_unwind(AssertUnwindSafe(job));
                    done.lock().expect("results lock").push((index, result));
                }
            });
        }
    });
    let mut done = done.into_inner().expect("results lock");
    done.sort_by_key(|(index, _)| *index);
    done.into_iter()
        .map(|(_, result)| result.unwrap_or_else(|panic| resume_unwind(panic)))
        .collect()
}

/// A job printing a part of the file at a path.
pub type Part<'a> = Job<'a, (&'static str, Result<String, String>)>;

/// [`run`] of jobs that each print a part of a file: each file's parts, in job order.
pub fn parts(
    items: usize,
    jobs: Vec<Part<'_>>,
) -> Result<BTreeMap<&'static str, Vec<String>>, String> {
    let mut parts: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (path, printed) in run(items, jobs) {
        parts.entry(path).or_default().push(printed?);
    }
    Ok(parts)
}

/// The ranges `0..len` is cut into, [`ITEMS_PER_JOB`] items each (none when `len` is 0).
pub fn chunks(len: usize) -> Vec<std::ops::Range<usize>> {
    (0..len)
        .step_by(ITEMS_PER_JOB)
        .map(|start| start..(start + ITEMS_PER_JOB).min(len))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_back_in_job_order() {
        let jobs: Vec<Job<usize>> = (0..20usize)
            .map(|i| {
                Box::new(move || {
                    std::thread::sleep(std::time::Duration::from_millis(20 - i as u64));
                    i
                }) as Job<usize>
            })
            .collect();
        assert_eq!(run(ITEMS_PER_JOB, jobs), (0..20).collect::<Vec<_>>());
    }

    #[test]
    fn chunks_cover_the_range() {
        assert!(chunks(0).is_empty());
        assert_eq!(
            chunks(ITEMS_PER_JOB + 1),
            vec![0..ITEMS_PER_JOB, ITEMS_PER_JOB..ITEMS_PER_JOB + 1]
        );
    }
}

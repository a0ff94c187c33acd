//! Where an analysis's work runs: worker threads on every CPU but those a timed native run holds
//! ([`reserve_cpu`]), taking items from one queue, costliest first. An item may queue more (a
//! line size's block stream, once built, queues the cache chains that replay it), so the work
//! has no barriers: while one CPU finishes a long chain the other takes the next stream, a
//! timing core or an ILP point, instead of waiting for the slowest item of a phase.

use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

/// CPUs the analysis leaves alone for now (see [`reserve_cpu`]).
static RESERVED: AtomicUsize = AtomicUsize::new(0);

/// While the guard lives, an analysis running beside (on other threads) uses one worker thread
/// fewer (always at least one), from its next work item on: a timed native run started next
/// to a profile's analysis gets a CPU of its own instead of sharing one with two workers.
pub fn reserve_cpu() -> CpuReserved {
    RESERVED.fetch_add(1, Ordering::SeqCst);
    CpuReserved(())
}

pub struct CpuReserved(());

impl Drop for CpuReserved {
    fn drop(&mut self) {
        RESERVED.fetch_sub(1, Ordering::SeqCst);
    }
}

fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Whether worker `w` of `threads` has to wait for a CPU someone reserved (worker 0 never does).
fn held_back(w: usize, threads: usize) -> bool {
    w > 0 && w >= threads.saturating_sub(RESERVED.load(Ordering::SeqCst))
}

/// The work of a [`run`], costliest first (the order items were queued breaks ties).
pub(super) struct Queue<T> {
    state: Mutex<State<T>>,
    changed: Condvar,
}

struct State<T> {
    heap: BinaryHeap<Entry<T>>,
    /// Items taken and not finished: they may still queue more.
    running: usize,
    queued: u64,
}

struct Entry<T> {
    cost: u64,
    order: u64,
    item: T,
}

impl<T> PartialEq for Entry<T> {
    fn eq(&self, other: &Self) -> bool {
        (self.cost, self.order) == (other.cost, other.order)
    }
}
impl<T> Eq for Entry<T> {}
impl<T> PartialOrd for Entry<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Entry<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.cost, std::cmp::Reverse(self.order))
            .cmp(&(other.cost, std::cmp::Reverse(other.order)))
    }
}

impl<T> Queue<T> {
    /// Queues `item`, estimated to cost `cost` (any unit, the same for every item).
    pub(super) fn push(&self, cost: u64, item: T) {
        let mut s = self.state.lock().unwrap();
        let order = s.queued;
        s.queued += 1;
        s.heap.push(Entry { cost, order, item });
        drop(s);
        self.changed.notify_one();
    }

    /// The costliest item, waiting while others run (they may queue more); None once the
    /// queue is empty and nothing runs.
    fn take(&self) -> Option<T> {
        let mut s = self.state.lock().unwrap();
        loop {
            if let Some(e) = s.heap.pop() {
                s.running += 1;
                return Some(e.item);
            }
            if s.running == 0 {
                return None;
            }
            s = self.changed.wait(s).unwrap();
        }
    }

    fn finished_one(&self) {
        // A panic elsewhere may have poisoned the lock; the count is still right.
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.running -= 1;
        drop(s);
        self.changed.notify_all();
    }

    fn is_done(&self) -> bool {
        let s = self.state.lock().unwrap();
        s.heap.is_empty() && s.running == 0
    }
}

/// Marks a taken item finished when dropped.
struct Finished<'q, T>(&'q Queue<T>);

impl<T> Drop for Finished<'_, T> {
    fn drop(&mut self) {
        self.0.finished_one();
    }
}

/// Runs `items` (with their costs) and whatever they queue on all CPUs; the results in the
/// order they finished.
pub(super) fn run<T: Send, R: Send>(
    items: Vec<(u64, T)>,
    f: impl Fn(T, &Queue<T>) -> R + Sync,
) -> Vec<R> {
    let queue = Queue {
        state: Mutex::new(State {
            heap: BinaryHeap::new(),
            running: 0,
            queued: 0,
        }),
        changed: Condvar::new(),
    };
    for (cost, item) in items {
        queue.push(cost, item);
    }
    let results = Mutex::new(Vec::new());
    let threads = threads();
    std::thread::scope(|s| {
        for w in 0..threads {
            let (queue, results, f) = (&queue, &results, &f);
            s.spawn(move || loop {
                while held_back(w, threads) {
                    if queue.is_done() {
                        return;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                let Some(item) = queue.take() else {
                    return;
                };
                // Counted finished even when `f` panics: the other workers then end instead of
                // waiting for it, and the scope passes the panic on.
                let _finished = Finished(queue);
                let r = f(item, queue);
                results.lock().unwrap().push(r);
            });
        }
    });
    results.into_inner().unwrap()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items queued by items run too, every one once.
    #[test]
    fn queued_items_run_once_each() {
        let done = run(vec![(1, 10u32), (5, 5)], |n, q| {
            if n % 10 == 0 && n < 40 {
                q.push(u64::from(n), n + 10);
                q.push(0, n + 1);
            }
            n
        });
        let mut sorted = done.clone();
        sorted.sort();
        assert_eq!(sorted, vec![5, 10, 11, 20, 21, 30, 31, 40]);
    }

    /// An item that panics ends the run with its panic; the other workers do not wait for it.
    #[test]
    #[should_panic(expected = "panicked")]
    fn a_panicking_item_ends_the_run() {
        run((0..8u64).map(|k| (k, k)).collect(), |k, _| {
            if k == 3 {
                panic!("item 3");
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
            k
        });
    }
}

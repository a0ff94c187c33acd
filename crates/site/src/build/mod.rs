//! One build: read the run list, draw the pages of the runs that changed (and the comparisons
//! that name them), merge their figures, then draw the comparisons across runs and the listing
//! pages (primitives, machines, index) from the merged figures, and save the manifest.

mod comparing;

use crate::comparisons::{Pending, Spec};
use crate::context::Context as Drawing;
use crate::figures::Figures;
use crate::state::{ComparisonState, Pages, State};
use crate::{Options, Outcome};
use anyhow::{Context, Result};
use cryptospeed_model::RunRecord;
use cryptospeed_store::{MachineRow, RunRow, Store};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Builds (or brings up to date) the site of `store` in `options.dir`.
pub fn build(store: &mut dyn Store, options: &Options) -> Result<Outcome> {
    refuse_foreign_folder(&options.dir)?;
    std::fs::create_dir_all(&options.dir)
        .with_context(|| format!("cannot create {}", options.dir.display()))?;
    let old = State::load(&options.dir, &options.tool);
    let rows = store.runs()?;
    let machines = store.machines()?;
    let mut b = Build::new(store, options, old, rows, machines);
    b.runs()?;
    b.cross_comparisons()?;
    b.listings()?;
    b.finish()
}

/// The runs a set of machines' noise is learnt from, and the noise once computed.
pub(crate) type History = (Vec<i64>, Option<Arc<crate::comparisons::Noise>>);

pub(crate) struct Build<'a> {
    pub store: &'a mut dyn Store,
    /// The options, runs, machines and cross-run comparisons the pages are drawn against.
    pub ctx: Drawing<'a>,
    pub old: State,
    pub new: State,
    pub pages: Pages,
    /// Run labels, for telling a run id from a label that looks like one.
    pub labels: HashSet<String>,
    /// Run id → machine id.
    pub machine_of: HashMap<i64, i64>,
    /// Records held for the comparisons that follow (the last run of each configuration).
    pub records: HashMap<i64, Arc<RunRecord>>,
    /// Machine set → the ids of the runs its run-to-run noise is learnt from, and the noise.
    pub history: HashMap<Vec<i64>, History>,
    pub runs_read: usize,
    pub computed: usize,
}

/// A folder that holds files but no site manifest is someone else's: writing `index.html` there
/// could overwrite theirs.
fn refuse_foreign_folder(dir: &std::path::Path) -> Result<()> {
    let Ok(mut entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    if entries.next().is_some() && !dir.join(crate::state::MANIFEST).exists() {
        anyhow::bail!(
            "{} holds files but no {} (not a site cryptospeed wrote): give a new or empty folder",
            dir.display(),
            crate::state::MANIFEST
        );
    }
    Ok(())
}

/// Runs planned and read before their pages are drawn together.
const CHUNK: usize = 256;

/// A page to draw: a run's (its record, machine and previous run), or a comparison.
enum Job {
    Run(Arc<RunRecord>, Option<Box<MachineRow>>, Option<i64>),
    Compare(Box<Pending>),
}

/// A drawn page: its path, hash, whether it was written, and a comparison's state.
type Drawn = (String, String, bool, Option<ComparisonState>);

/// `f` over `items` on every core, the results in the items' order.
fn parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || items.len() < 2 {
        return items.iter().map(f).collect();
    }
    let size = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(size)
            .map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a drawing thread panicked"))
            .collect()
    })
}

/// What makes two runs the same configuration: the machine, measured or imported, and the
/// variants they hold.
fn configuration(row: &RunRow) -> (i64, bool, String) {
    let mut variants: Vec<&str> = row.variants.split(',').collect();
    variants.sort_unstable();
    (row.machine_id, row.source.is_empty(), variants.join(","))
}

/// What a run page shows, as a key: any change means the page is drawn again.
fn run_key(row: &RunRow, previous: Option<i64>) -> String {
    format!(
        "{}|{}|{:?}|{}|{}|{}|{previous:?}",
        row.status.as_str(),
        row.measurements,
        row.label,
        row.started_at,
        row.source,
        row.variants
    )
}

impl<'a> Build<'a> {
    fn new(
        store: &'a mut dyn Store,
        options: &'a Options,
        old: State,
        rows: Vec<RunRow>,
        machines: Vec<MachineRow>,
    ) -> Build<'a> {
        let pages = Pages::new(&options.dir, old.pages.clone());
        let new = State {
            format: old.format.clone(),
            figures: old.figures.clone(),
            histories: old.histories.clone(),
            ..State::default()
        };
        let labels = rows.iter().filter_map(|r| r.label.clone()).collect();
        let machine_of = rows.iter().map(|r| (r.id, r.machine_id)).collect();
        Build {
            store,
            ctx: Drawing {
                options,
                rows,
                machines,
                linked: Vec::new(),
                histories: Vec::new(),
            },
            old,
            new,
            pages,
            labels,
            machine_of,
            records: HashMap::new(),
            history: HashMap::new(),
            runs_read: 0,
            computed: 0,
        }
    }

    /// A run, from those held or from the store (in the catalog's order, as `show` prints it).
    pub fn record(&mut self, id: i64) -> Result<Arc<RunRecord>> {
        if let Some(r) = self.records.get(&id) {
            return Ok(r.clone());
        }
        let mut record = self.store.load_run(&id.to_string())?;
        cryptospeed_query::in_catalog_order(&mut record);
        self.runs_read += 1;
        Ok(Arc::new(record))
    }

    pub fn machine(&self, id: i64) -> Option<&MachineRow> {
        self.ctx.machine(id)
    }

    /// Every run's page, and the comparisons with its previous run and between its variants:
    /// read and planned here, drawn on every core, a chunk of runs at a time.
    fn runs(&mut self) -> Result<()> {
        let mut last: HashMap<(i64, bool, String), i64> = HashMap::new();
        for start in (0..self.ctx.rows.len()).step_by(CHUNK) {
            let end = (start + CHUNK).min(self.ctx.rows.len());
            let mut jobs = Vec::new();
            for i in start..end {
                let row = self.ctx.rows[i].clone();
                let previous = last.insert(configuration(&row), row.id);
                self.plan_run(&row, previous, &mut jobs)?;
            }
            let (options, pages) = (self.ctx.options, &self.pages);
            let done = parallel(&jobs, |job| {
                let (path, html, state) = match job {
                    Job::Run(record, machine, previous) => (
                        format!("runs/{}.html", record.run.id),
                        crate::run_page::render(options, record, machine.as_deref(), *previous),
                        None,
                    ),
                    Job::Compare(p) => {
                        let (html, state) = p.compute(&options.deviations);
                        (p.spec.path.clone(), html, Some(state))
                    }
                };
                let (hash, written) = pages.write(&path, &html)?;
                Ok((path, hash, written, state))
            });
            self.settle_chunk(done)?;
        }
        Ok(())
    }

    /// Reads what one run's pages need and adds the jobs that draw them.
    fn plan_run(&mut self, row: &RunRow, previous: Option<i64>, jobs: &mut Vec<Job>) -> Result<()> {
        let key = run_key(row, previous);
        let path = format!("runs/{}.html", row.id);
        let unchanged = self.old.runs.get(&row.id) == Some(&key);
        if !(unchanged && self.pages.keep(&path)) {
            let record = self.record(row.id)?;
            self.new.figures.merge(&record, row.machine_id);
            self.new.histories.merge(&record, row.machine_id);
            let machine = self.machine(row.machine_id).cloned().map(Box::new);
            self.records.insert(row.id, record.clone());
            jobs.push(Job::Run(record, machine, previous));
        }
        self.new.runs.insert(row.id, key);
        if let Some(p) = previous {
            if let Some(pending) = self.prepare(&Spec::previous(p, row.id)) {
                jobs.push(Job::Compare(Box::new(pending)));
            }
            self.records.remove(&p);
        }
        if row.variants.contains(',') {
            if let Some(pending) = self.prepare(&Spec::sweep(row.id)) {
                jobs.push(Job::Compare(Box::new(pending)));
            }
        }
        Ok(())
    }

    /// Notes the pages a chunk's jobs drew and wrote.
    fn settle_chunk(&mut self, done: Vec<Result<Drawn>>) -> Result<()> {
        for d in done {
            let (path, hash, written, state) = d?;
            self.pages.record(&path, hash, written);
            if let Some(state) = state {
                self.computed += 1;
                self.new.comparisons.insert(path, state);
            }
        }
        Ok(())
    }

    /// The history pages whose series changed (or whose file is gone), and the links to all.
    fn history_pages(&mut self) -> Result<()> {
        let histories = std::mem::take(&mut self.new.histories);
        for ((machine, primitive), series) in histories.pages() {
            let Some(m) = self.ctx.machine(machine).cloned() else {
                continue;
            };
            let path = crate::history_page::path(&m, primitive);
            let changed = histories
                .changed
                .contains(&(machine, primitive.to_string()));
            if changed || !self.pages.keep(&path) {
                let html = crate::history_page::render(&m, primitive, &series);
                self.pages.put(&path, &html)?;
            }
            self.ctx.histories.push(crate::context::Linked {
                title: format!("{primitive} on {}", m.key),
                path,
                machines: vec![machine],
            });
        }
        self.new.histories = histories;
        Ok(())
    }

    /// The history, primitive, machine and index pages.
    fn listings(&mut self) -> Result<()> {
        self.history_pages()?;
        let figures: Figures = self.new.figures.clone();
        for primitive in figures.primitives() {
            let html = crate::primitive::render(&self.ctx, &figures, &primitive);
            self.pages
                .put(&crate::page::primitive_path(&primitive), &html)?;
        }
        for m in self.ctx.machines.clone() {
            let html = crate::listing::machine_page(&self.ctx, &figures, &m);
            self.pages.put(&crate::page::machine_path(&m), &html)?;
        }
        let html = crate::listing::index(&self.ctx, &figures);
        self.pages.put("index.html", &html)
    }

    fn finish(mut self) -> Result<Outcome> {
        let removed = self.pages.remove_stale()?;
        self.new.pages = std::mem::take(&mut self.pages.now);
        self.new.save(&self.ctx.options.dir)?;
        Ok(Outcome {
            pages: self.new.pages.len(),
            written: self.pages.written,
            removed,
            runs_read: self.runs_read,
            comparisons: self.computed,
        })
    }
}

//! `cryptospeed trace -- COMMAND`'s work for any front end: a whole program run under cstrace
//! through one cache hierarchy and one branch predictor, and its summary written the way
//! cachegrind prints its own (text) or as JSON. It is how the simulator is checked against
//! cachegrind and callgrind on the same program.

use super::valgrind::{trace_program, TracedProgram};
use anyhow::Result;
use cryptospeed_sim::branches::BranchSim;
use cryptospeed_sim::cache::CacheConfig;
use cryptospeed_sim::hierarchy::Hierarchy;
use cryptospeed_sim::predict;
use std::fmt::Write;
use std::time::Instant;

/// The configuration a whole-program trace simulates.
pub struct WholeProgram {
    pub i1: CacheConfig,
    pub d1: CacheConfig,
    pub ll: CacheConfig,
    /// A predictor's registry name.
    pub predictor: String,
}

/// A finished trace: the simulated hierarchy and predictor, and how long tracing took.
pub struct WholeProgramRun {
    pub traced: TracedProgram<(Hierarchy, BranchSim)>,
    pub seconds: f64,
}

impl WholeProgram {
    /// Parses cachegrind-style `SIZE,ASSOC,LINE[,POLICY]` levels and a predictor name.
    pub fn parse(i1: &str, d1: &str, ll: &str, predictor: &str) -> Result<WholeProgram> {
        let level = |s: &str| CacheConfig::parse(s).map_err(anyhow::Error::msg);
        Ok(WholeProgram {
            i1: level(i1)?,
            d1: level(d1)?,
            ll: level(ll)?,
            predictor: predictor.to_string(),
        })
    }

    /// Runs `command` under cstrace through this configuration.
    pub fn trace(&self, command: &[String]) -> Result<WholeProgramRun> {
        let predictor = predict::create(&self.predictor).map_err(anyhow::Error::msg)?;
        let sink = (
            Hierarchy::new(&self.i1, &self.d1, &self.ll),
            BranchSim::new(predictor),
        );
        let started = Instant::now();
        let traced = trace_program(command, sink)?;
        let seconds = started.elapsed().as_secs_f64();
        Ok(WholeProgramRun { traced, seconds })
    }

    /// The run as one JSON object.
    pub fn json(&self, command: &[String], run: &WholeProgramRun) -> serde_json::Value {
        let t = &run.traced;
        let (h, b) = &t.sink;
        serde_json::json!({
            "command": command, "exit": t.status.code(),
            "I1": self.i1, "D1": self.d1, "LL": self.ll, "predictor": self.predictor,
            "caches": h.counts, "branches": b.counts,
            "trace_bytes": t.totals.bytes, "seconds": run.seconds,
            "instructions": t.totals.instructions,
            "valgrind_lib": t.valgrind_lib,
        })
    }

    /// The run as cachegrind prints its summary, plus the predictor's figures and the speed.
    pub fn text(&self, run: &WholeProgramRun) -> String {
        let t = &run.traced;
        let (c, bc) = (t.sink.0.counts, t.sink.1.counts);
        let mut s = String::new();
        let split = |s: &mut String, what: &str, total: u64, a: u64, b: u64, unit: (&str, &str)| {
            let _ = writeln!(
                s,
                "{what:<15}{total:>14}  ({a} {} + {b} {})",
                unit.0, unit.1
            );
        };
        let _ = writeln!(
            s,
            "I1 {} · D1 {} · LL {}",
            self.i1.label(),
            self.d1.label(),
            self.ll.label()
        );
        let _ = writeln!(s, "I   refs:      {:>14}", c.ir);
        let _ = writeln!(s, "I1  misses:    {:>14}", c.i1mr);
        let _ = writeln!(s, "LLi misses:    {:>14}", c.ilmr);
        split(&mut s, "D   refs:", c.dr + c.dw, c.dr, c.dw, ("rd", "wr"));
        split(
            &mut s,
            "D1  misses:",
            c.d1mr + c.d1mw,
            c.d1mr,
            c.d1mw,
            ("rd", "wr"),
        );
        split(
            &mut s,
            "LLd misses:",
            c.dlmr + c.dlmw,
            c.dlmr,
            c.dlmw,
            ("rd", "wr"),
        );
        let total = bc.conditional + bc.indirect;
        let _ = writeln!(
            s,
            "Branches:      {total:>14}  ({} cond + {} ind)   predictor: {}",
            bc.conditional, bc.indirect, self.predictor
        );
        let (cm, im) = (bc.conditional_mispredicted, bc.indirect_mispredicted);
        split(&mut s, "Mispredicts:", cm + im, cm, im, ("cond", "ind"));
        let _ = writeln!(
            s,
            "traced {} instructions in {:.2} s ({:.1} M instructions/s, {} MB of trace)",
            t.totals.instructions,
            run.seconds,
            t.totals.instructions as f64 / run.seconds / 1e6,
            t.totals.bytes >> 20
        );
        s
    }
}

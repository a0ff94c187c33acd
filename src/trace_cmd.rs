//! `cryptospeed trace -- COMMAND`: run any program under cstrace and simulate one cache
//! hierarchy and one branch predictor over its whole execution, printed the way cachegrind
//! prints its summary. It is how the simulator is checked against cachegrind and callgrind
//! (same program, same environment), and a quick way to try a configuration.

use anyhow::Result;
use clap::Args;
use cryptospeed_runner::profile::valgrind as traced;
use cryptospeed_sim::branches::BranchSim;
use cryptospeed_sim::cache::CacheConfig;
use cryptospeed_sim::hierarchy::Hierarchy;
use cryptospeed_sim::predict;
use std::time::Instant;

#[derive(Args)]
pub struct TraceArgs {
    /// First-level instruction cache: SIZE,ASSOC,LINE[,POLICY] (cachegrind's order).
    #[arg(long = "I1", default_value = "32768,8,64")]
    i1: String,
    /// First-level data cache.
    #[arg(long = "D1", default_value = "32768,8,64")]
    d1: String,
    /// Last-level (unified) cache.
    #[arg(long = "LL", default_value = "1048576,16,64")]
    ll: String,
    /// Conditional-branch predictor.
    #[arg(long, default_value = "cachegrind")]
    predictor: String,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

pub fn trace(args: TraceArgs) -> Result<i32> {
    let i1 = CacheConfig::parse(&args.i1).map_err(anyhow::Error::msg)?;
    let d1 = CacheConfig::parse(&args.d1).map_err(anyhow::Error::msg)?;
    let ll = CacheConfig::parse(&args.ll).map_err(anyhow::Error::msg)?;
    let predictor = predict::create(&args.predictor).map_err(anyhow::Error::msg)?;
    let sink = (Hierarchy::new(&i1, &d1, &ll), BranchSim::new(predictor));
    let started = Instant::now();
    let traced = traced::trace_program(&args.command, sink)?;
    let ((h, b), totals, status) = (traced.sink, traced.totals, traced.status);
    let secs = started.elapsed().as_secs_f64();
    let c = h.counts;
    if args.json {
        println!(
            "{}",
            serde_json::json!({
                "command": args.command, "exit": status.code(),
                "I1": i1, "D1": d1, "LL": ll, "predictor": args.predictor,
                "caches": c, "branches": b.counts,
                "trace_bytes": totals.bytes, "seconds": secs,
                "instructions": totals.instructions,
                "valgrind_lib": traced.valgrind_lib,
            })
        );
    } else {
        println!("I1 {} · D1 {} · LL {}", i1.label(), d1.label(), ll.label());
        println!("I   refs:      {:>14}", c.ir);
        println!("I1  misses:    {:>14}", c.i1mr);
        println!("LLi misses:    {:>14}", c.ilmr);
        println!(
            "D   refs:      {:>14}  ({} rd + {} wr)",
            c.dr + c.dw,
            c.dr,
            c.dw
        );
        println!(
            "D1  misses:    {:>14}  ({} rd + {} wr)",
            c.d1mr + c.d1mw,
            c.d1mr,
            c.d1mw
        );
        println!(
            "LLd misses:    {:>14}  ({} rd + {} wr)",
            c.dlmr + c.dlmw,
            c.dlmr,
            c.dlmw
        );
        let bc = b.counts;
        println!(
            "Branches:      {:>14}  ({} cond + {} ind)   predictor: {}",
            bc.conditional + bc.indirect,
            bc.conditional,
            bc.indirect,
            args.predictor
        );
        println!(
            "Mispredicts:   {:>14}  ({} cond + {} ind)",
            bc.conditional_mispredicted + bc.indirect_mispredicted,
            bc.conditional_mispredicted,
            bc.indirect_mispredicted
        );
        println!(
            "traced {} instructions in {:.2} s ({:.1} M instructions/s, {} MB of trace)",
            totals.instructions,
            secs,
            totals.instructions as f64 / secs / 1e6,
            totals.bytes >> 20
        );
    }
    Ok(if status.success() { 0 } else { 1 })
}

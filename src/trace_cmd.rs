//! `cryptospeed trace -- COMMAND`'s arguments: run any program under cstrace and simulate one
//! cache hierarchy and one branch predictor over its whole execution, printed the way cachegrind
//! prints its summary (runner::profile::whole_program does the work).

use anyhow::Result;
use clap::Args;
use cryptospeed_runner::profile::whole_program::WholeProgram;

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
    let config = WholeProgram::parse(&args.i1, &args.d1, &args.ll, &args.predictor)?;
    let run = config.trace(&args.command)?;
    match args.json {
        true => println!("{}", config.json(&args.command, &run)),
        false => print!("{}", config.text(&run)),
    }
    Ok(if run.traced.status.success() { 0 } else { 1 })
}

//! Benchmark aid: replay a saved cstrace file through one cachegrind-like hierarchy and the
//! cachegrind predictor, and report the reader's own speed.
use cryptospeed_sim::branches::BranchSim;
use cryptospeed_sim::cache::CacheConfig;
use cryptospeed_sim::decode::Decoded;
use cryptospeed_sim::hierarchy::Hierarchy;
use cryptospeed_sim::predict;
use cryptospeed_sim::trace::read_cstrace;

fn main() {
    let path = std::env::args().nth(1).expect("usage: replay TRACE");
    let l1 = CacheConfig::parse("32768,8,64").unwrap();
    let ll = CacheConfig::parse("1048576,16,64").unwrap();
    let mut sink = (
        Hierarchy::new(&l1, &l1, &ll),
        BranchSim::new(predict::create("cachegrind").unwrap()),
    );
    let t = std::time::Instant::now();
    let f = std::fs::File::open(path).unwrap();
    let mut d = Decoded::default();
    let totals = read_cstrace(f, &mut d, &mut sink).unwrap();
    let s = t.elapsed().as_secs_f64();
    println!(
        "{} instructions in {s:.2} s: {:.1} M/s; {:?}",
        totals.instructions,
        totals.instructions as f64 / s / 1e6,
        sink.0.counts
    );
}

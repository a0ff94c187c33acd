//! Diagnostic: the distinct instructions of a kept cstrace stream that the x86-64 decoder could
//! not decode, with their bytes.
use cryptospeed_sim::decode::Decoded;
use cryptospeed_sim::region::Recorder;
use cryptospeed_sim::trace::read_cstrace;

fn main() {
    let trace = std::env::args().nth(1).expect("usage: undecoded TRACE");
    let f = std::io::BufReader::new(std::fs::File::open(trace).unwrap());
    let mut d = Decoded::default();
    let mut rec = Recorder::new(false, 200_000_000);
    read_cstrace(f, &mut d, &mut rec).unwrap();
    for i in d.all().iter().filter(|i| !i.decoded) {
        println!("{:#x} len {} {:02x?}", i.addr, i.len, i.bytes);
    }
}

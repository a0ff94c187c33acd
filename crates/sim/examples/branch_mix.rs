//! Debug aid: which mnemonics the conditional-branch stream of a saved cstrace file is made of.
use cryptospeed_sim::branches::{Outcome, Resolver};
use cryptospeed_sim::decode::{Decoded, InstrInfo};
use cryptospeed_sim::trace::{read_cstrace, DataAccess, Sink};
use std::collections::BTreeMap;

struct S(Resolver, BTreeMap<String, u64>, Option<String>);
impl Sink for S {
    fn instruction(&mut self, info: &InstrInfo) {
        if let Some(Outcome::Conditional { .. }) = self.0.next(info) {
            *self.1.entry(self.2.clone().unwrap()).or_default() += 1;
        }
        self.2 = Some(format!("{:?}", info.mnemonic));
    }
    fn data(&mut self, _: DataAccess) {}
}

fn main() {
    let f = std::fs::File::open(std::env::args().nth(1).unwrap()).unwrap();
    let mut d = Decoded::default();
    let mut s = S(Resolver::default(), BTreeMap::new(), None);
    read_cstrace(std::io::BufReader::new(f), &mut d, &mut s).unwrap();
    for (k, v) in s.1 {
        println!("{k} {v}");
    }
}

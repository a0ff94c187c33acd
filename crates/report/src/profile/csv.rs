//! Long-format CSV of profiles: one line per figure (summary, instruction class, predictor,
//! cache configuration, ILP point, timing-model point), keyed by primitive and implementation,
//! for plotting scripts.

use crate::registry::OutputFormat;
use cryptospeed_sim::profile::ProfileDocument;
use std::fmt::Write as _;

pub const FORMAT: OutputFormat<[ProfileDocument], ()> = OutputFormat {
    name: "csv",
    aliases: &[],
    write,
};

pub fn write(profiles: &[ProfileDocument], _: &()) -> String {
    let mut s =
        String::from("primitive,implementation,table,level,size,line,assoc,policy,key,value\n");
    for p in profiles {
        let head = format!("{},{}", p.primitive, p.implementation.replace(',', ";"));
        let _ = writeln!(s, "{head},summary,,,,,,instructions,{}", p.instructions);
        let _ = writeln!(
            s,
            "{head},summary,,,,,,instructions_per_byte,{}",
            p.instructions_per_byte
        );
        if let Some(c) = p.tsc_cycles_per_byte {
            let _ = writeln!(s, "{head},summary,,,,,,tsc_cycles_per_byte,{c}");
        }
        if let Some(c) = p.tsc_cycles_per_byte_unmasked {
            let _ = writeln!(s, "{head},summary,,,,,,tsc_cycles_per_byte_unmasked,{c}");
        }
        for (c, n) in &p.mix.by_class {
            let _ = writeln!(s, "{head},mix,,,,,,{},{n}", c.name());
        }
        for r in &p.analysis.predictors {
            let _ = writeln!(s, "{head},predictor,,,,,,{},{}", r.predictor, r.hit_rate);
        }
        for c in &p.analysis.caches {
            let _ = writeln!(
                s,
                "{head},cache,{},{},{},{},{},miss_rate,{}",
                c.level.name(),
                c.config.size,
                c.config.line,
                c.config.assoc,
                c.config.policy,
                c.miss_rate
            );
        }
        for r in &p.analysis.ilp {
            let _ = writeln!(
                s,
                "{head},ilp,,,,,,window={} width={},{}",
                r.window, r.width, r.ipc
            );
        }
        for r in &p.analysis.timing {
            let key = format!("{}={}", r.sweep, r.x);
            let _ = writeln!(s, "{head},timing,,,,,,{key} ipc,{}", r.result.ipc);
            let cpb = p.model_cycles_per_byte(&r.result);
            let _ = writeln!(s, "{head},timing,,,,,,{key} cycles_per_byte,{cpb}");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::super::fixture::stored;

    #[test]
    fn same_bytes_as_before_the_move() {
        let doc = stored(include_str!("../../tests/data/profile-md5-64.csv-doc.json"));
        let expected = include_str!("../../tests/data/profile-md5-64.csv");
        assert_eq!(super::write(&[doc], &()), expected);
    }
}

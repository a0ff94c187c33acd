//! `bssl speed -json`: a JSON array of `{"description", "numCalls", "microseconds",
//! "bytesPerCall"?}` objects, one per line of the text form.

use crate::bssl::describe;
use crate::{ImportError, ImportOptions, ImportedResult, ImportedRun, LogFormat, ParsedLog};
use serde::Deserialize;

pub struct BsslJson;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Entry {
    description: String,
    num_calls: u64,
    microseconds: u64,
    #[serde(default)]
    bytes_per_call: Option<u64>,
}

impl LogFormat for BsslJson {
    fn name(&self) -> &'static str {
        "bssl-speed-json"
    }

    fn sniff(&self, text: &str) -> bool {
        // `[{` or `[]`, not a prompt like `[root@host]# …` pasted above a text log.
        text.trim_start()
            .strip_prefix('[')
            .is_some_and(|rest| rest.trim_start().starts_with(['{', ']']))
    }

    fn parse(&self, text: &str, _options: &ImportOptions) -> Result<ParsedLog, ImportError> {
        let entries: Vec<Entry> = serde_json::from_str(text).map_err(|e| {
            ImportError::at(e.line(), format!("not bssl speed -json output: {e} (expected an array of {{\"description\", \"numCalls\", \"microseconds\", \"bytesPerCall\"}} objects)"))
        })?;
        // serde_json does not give positions per element: find each description's line.
        let line_of = |needle: &str, from: usize| -> usize {
            let quoted = format!("\"{needle}\"");
            text.lines()
                .enumerate()
                .skip(from.saturating_sub(1))
                .find(|(_, l)| l.contains(&quoted))
                .map(|(i, _)| i + 1)
                .unwrap_or(from.max(1))
        };
        let mut run = ImportedRun {
            format: self.name().into(),
            implementation: "boringssl".into(),
            first_line: 1,
            last_line: text.lines().count().max(1),
            ..Default::default()
        };
        let mut at = 1;
        for e in entries {
            at = line_of(&e.description, at);
            if e.microseconds == 0 {
                return Err(ImportError::at(
                    at,
                    format!("'{}': zero microseconds", e.description),
                ));
            }
            let (m, op, bytes) = describe(&e.description);
            let bytes = e.bytes_per_call.filter(|b| *b > 0).or(bytes);
            let ops_per_s = e.num_calls as f64 / e.microseconds as f64 * 1e6;
            if run
                .results
                .iter()
                .any(|r| r.primitive == m.primitive && r.op == op && r.bytes == bytes)
            {
                return Err(ImportError::at(
                    at,
                    format!("'{}' appears twice", e.description),
                ));
            }
            run.results.push(ImportedResult {
                primitive: m.primitive,
                op,
                bytes,
                rate: ops_per_s * bytes.unwrap_or(1) as f64,
                printed_name: e.description,
                mapped: m.mapped,
                line: at,
                samples: Vec::new(),
                cycles: None,
            });
        }
        Ok(ParsedLog {
            runs: vec![run],
            ..Default::default()
        })
    }
}

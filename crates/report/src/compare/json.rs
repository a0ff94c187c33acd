//! The whole comparison as JSON: sides, rows with every side's figure and test, geomeans, and
//! the declared deviations of the cells shown (`deviations`: side, primitive, op, text).

use super::{Mode, View};
use crate::registry::OutputFormat;
use cryptospeed_compare::Comparison;

pub const FORMAT: OutputFormat<Comparison, View> = OutputFormat {
    name: "json",
    aliases: &[],
    write,
};

pub fn write(c: &Comparison, view: &View) -> String {
    let mode = match view.mode {
        Mode::Ratio => "ratio",
        Mode::Percent => "percent",
        Mode::Raw => "raw",
    };
    let mut v = serde_json::to_value(c).unwrap_or_default();
    if let Some(obj) = v.as_object_mut() {
        obj.insert("mode".into(), mode.into());
        let deviations: Vec<serde_json::Value> = view
            .footnotes
            .list
            .iter()
            .map(|d| {
                serde_json::json!({"side": d.column, "primitive": d.primitive, "op": d.op.as_str(), "text": d.text})
            })
            .collect();
        obj.insert("deviations".into(), deviations.into());
    }
    let mut s = serde_json::to_string_pretty(&v).unwrap_or_default();
    s.push('\n');
    s
}

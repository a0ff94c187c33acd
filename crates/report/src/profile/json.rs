//! JSON: the profile documents themselves, as an array, pretty-printed (each element is the
//! document `profile` stores).

use crate::registry::OutputFormat;
use cryptospeed_sim::profile::ProfileDocument;

pub const FORMAT: OutputFormat<[ProfileDocument], ()> = OutputFormat {
    name: "json",
    aliases: &[],
    write,
};

pub fn write(profiles: &[ProfileDocument], _: &()) -> String {
    serde_json::to_string_pretty(profiles).expect("profile documents serialise") + "\n"
}

#[cfg(test)]
mod tests {
    use super::super::fixture::stored;

    #[test]
    fn same_bytes_as_before_the_move() {
        let doc = stored(include_str!(
            "../../tests/data/profile-md5-64.json-doc.json"
        ));
        let expected = include_str!("../../tests/data/profile-md5-64.json");
        assert_eq!(super::write(&[doc], &()), expected);
    }
}

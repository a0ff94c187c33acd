//! The `openssl-cli` column runs `openssl speed` itself and reads its `+F` line: it is its own
//! oracle. This file puts its cells beside a direct run of the same command line (`openssl speed
//! -mr -seconds 1 -bytes N -evp NAME`, `-hmac` for HMAC, the process's user CPU time as its
//! clock), so the command covers the column and shows that nothing sits between the two.

use super::openssl::installed_speed_methods;
use crate::{Cell, Clock, Oracle, Provenance};
use anyhow::Result;
use cryptospeed_model::Op;
use std::path::Path;

pub struct OpenSslCli;

const EVP: &str = "the column's own command line run directly: `openssl speed -evp` counts \
    EVP calls on the buffer until a 1 s alarm and divides by the process's user CPU time";

static CELLS: &[Cell] = &[
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(16),
        args: &["-bytes", "{bytes}", "-evp", "sha256"],
        row: "+F:",
        oracle_loop: EVP,
        difference: None,
    },
    Cell {
        primitive: "sha256",
        op: Op::Hash,
        bytes: Some(8192),
        args: &["-bytes", "{bytes}", "-evp", "sha256"],
        row: "+F:",
        oracle_loop: EVP,
        difference: None,
    },
    Cell {
        primitive: "aes-128-cbc",
        op: Op::Encrypt,
        bytes: Some(16),
        args: &["-bytes", "{bytes}", "-evp", "aes-128-cbc"],
        row: "+F:",
        oracle_loop: EVP,
        difference: None,
    },
    Cell {
        primitive: "aes-128-cbc",
        op: Op::Encrypt,
        bytes: Some(8192),
        args: &["-bytes", "{bytes}", "-evp", "aes-128-cbc"],
        row: "+F:",
        oracle_loop: EVP,
        difference: None,
    },
    Cell {
        primitive: "hmac-sha256",
        op: Op::Mac,
        bytes: Some(64),
        args: &["-bytes", "{bytes}", "-hmac", "sha256"],
        row: "+F:",
        oracle_loop: "the column's own command line run directly: `openssl speed -hmac sha256` \
            (EVP_MAC init, update, final per buffer) until a 1 s alarm, user CPU time",
        difference: None,
    },
];

impl Oracle for OpenSslCli {
    fn column(&self) -> &'static str {
        "openssl-cli"
    }
    fn name(&self) -> &'static str {
        "openssl speed (the column's own program)"
    }
    fn cells(&self) -> &'static [Cell] {
        CELLS
    }
    installed_speed_methods!();
}

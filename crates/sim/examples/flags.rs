use iced_x86::{Decoder, DecoderOptions};
fn main() {
    for (name, b) in [
        ("shr eax,2", &[0xc1u8, 0xe8, 0x02][..]),
        ("rol eax,7", &[0xc1, 0xc0, 0x07]),
        ("shr eax,cl", &[0xd3, 0xe8]),
        ("xor eax,ebx", &[0x31, 0xd8]),
        ("add eax,ebx", &[0x01, 0xd8]),
        ("adc eax,ebx", &[0x11, 0xd8]),
        ("inc eax", &[0xff, 0xc0]),
        ("rorx eax,ebx,2", &[0xc4, 0xe3, 0x7b, 0xf0, 0xc3, 0x02]),
    ] {
        let i = Decoder::with_ip(64, b, 0, DecoderOptions::NONE).decode();
        println!(
            "{name}: read {:#x} written {:#x} undefined {:#x} modified {:#x}",
            i.rflags_read(),
            i.rflags_written(),
            i.rflags_undefined(),
            i.rflags_modified()
        );
    }
}

//! Renders an SVG file to PNG with the crate's rasteriser: `svg2png IN.svg OUT.png [SCALE]`.
//! Used to look at snapshot fixtures.

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        anyhow::bail!("usage: svg2png IN.svg OUT.png [SCALE]");
    }
    let svg = std::fs::read_to_string(&args[1])?;
    let scale = args.get(3).map(|s| s.parse()).transpose()?.unwrap_or(1.0);
    std::fs::write(&args[2], cryptospeed_chart::to_png(&svg, scale)?)?;
    Ok(())
}

//! PNG output: the same SVG rasterised by resvg with the system's fonts (DejaVu on Debian), so a
//! chart can go where SVG cannot.

use anyhow::{anyhow, Context, Result};
use resvg::{tiny_skia, usvg};

/// Renders `svg` at `scale` (2.0 gives a sharp image for papers and READMEs).
pub fn to_png(svg: &str, scale: f32) -> Result<Vec<u8>> {
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    if options.fontdb.is_empty() {
        return Err(anyhow!(
            "no system fonts found for the chart's text; install one (Debian: apt install fonts-dejavu-core)"
        ));
    }
    let tree = usvg::Tree::from_str(svg, &options).context("the chart is not valid SVG")?;
    let size = tree.size();
    let (w, h) = (
        (size.width() * scale).ceil() as u32,
        (size.height() * scale).ceil() as u32,
    );
    let mut pixmap =
        tiny_skia::Pixmap::new(w.max(1), h.max(1)).ok_or_else(|| anyhow!("chart too large"))?;
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().context("cannot encode the PNG")
}

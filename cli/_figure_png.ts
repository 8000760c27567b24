// SVG figures to PNG with resvg's WebAssembly build, at a size a paper uses:
// 2,100 pixels wide (7 in at 300 dpi). resvg-wasm sees no system fonts, so
// the text is set in DejaVu Sans from the dejavu-fonts-ttf npm package
// (both files are read from the installed npm packages: nothing is fetched
// at run time).

import { initWasm, Resvg } from "@resvg/resvg-wasm";
// The font package is in the module graph only so that deno installs it.
import "dejavu-fonts-ttf/package.json" with { type: "json" };
import { createRequire } from "node:module";
import { EvtsimError } from "../core/errors.ts";

/** Width of an exported PNG in pixels (7 in at 300 dpi). */
export const PNG_WIDTH = 2100;

let ready: Promise<Uint8Array> | undefined;

// Loads the wasm once per process; returns the font's bytes.
function load(): Promise<Uint8Array> {
  ready ??= (async () => {
    const require = createRequire(import.meta.url);
    await initWasm(await Deno.readFile(require.resolve("@resvg/resvg-wasm/index_bg.wasm")));
    return await Deno.readFile(require.resolve("dejavu-fonts-ttf/ttf/DejaVuSans.ttf"));
  })();
  return ready;
}

/**
 * Renders each SVG to a PNG `PNG_WIDTH` pixels wide (height in proportion).
 * A figure the renderer fails on is one error naming it (nothing is written).
 */
export async function svgsToPng(
  svgs: readonly string[],
  names: readonly string[],
): Promise<Uint8Array[]> {
  const font = await load();
  return svgs.map((svg, i) => {
    try {
      return toPng(svg, font);
    } catch (e) {
      if (e instanceof EvtsimError) throw e;
      throw new EvtsimError(
        "state",
        `figure ${names[i]}: the PNG renderer failed (${(e as Error).message}); no file written`,
      );
    }
  });
}

function toPng(svg: string, font: Uint8Array): Uint8Array {
  const r = new Resvg(svg, {
    fitTo: { mode: "width", value: PNG_WIDTH },
    background: "#ffffff",
    font: {
      fontBuffers: [font],
      loadSystemFonts: false,
      defaultFontFamily: "DejaVu Sans",
      sansSerifFamily: "DejaVu Sans",
    },
  });
  const image = r.render();
  const png = image.asPng();
  image.free();
  r.free();
  return png;
}

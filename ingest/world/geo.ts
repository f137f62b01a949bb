/**
 * WGS84 latitude/longitude to SWEREF99 TM (EPSG:3006): transverse Mercator on GRS80, central meridian
 * 15° E, scale 0.9996, false easting 500 000 m. The Gauss-Krüger series is Lantmäteriet's published one
 * ("Gauss conformal projection (Transverse Mercator), Krügers formulas"), accurate to well under a metre.
 */
export function toSweref99tm(lat: number, lon: number): { n: number; e: number } {
  const a = 6378137;
  const f = 1 / 298.257222101;
  const e2 = f * (2 - f);
  const n = f / (2 - f);
  const aRoof = (a / (1 + n)) * (1 + (n * n) / 4 + n ** 4 / 64);
  const A = e2;
  const B = (5 * e2 ** 2 - e2 ** 3) / 6;
  const C = (104 * e2 ** 3 - 45 * e2 ** 4) / 120;
  const D = (1237 * e2 ** 4) / 1260;
  const b1 = n / 2 - (2 * n ** 2) / 3 + (5 * n ** 3) / 16 + (41 * n ** 4) / 180;
  const b2 = (13 * n ** 2) / 48 - (3 * n ** 3) / 5 + (557 * n ** 4) / 1440;
  const b3 = (61 * n ** 3) / 240 - (103 * n ** 4) / 140;
  const b4 = (49561 * n ** 4) / 161280;
  const rad = Math.PI / 180;
  const phi = lat * rad;
  const dLambda = (lon - 15) * rad;
  const s = Math.sin(phi);
  const phiStar = phi - s * Math.cos(phi) * (A + B * s ** 2 + C * s ** 4 + D * s ** 6);
  const xi = Math.atan(Math.tan(phiStar) / Math.cos(dLambda));
  const eta = Math.atanh(Math.cos(phiStar) * Math.sin(dLambda));
  const k0 = 0.9996;
  // Krüger's series, the same four terms for both axes: sin·cosh for the northing, cos·sinh for the easting.
  const series = (start: number, f: (x: number) => number, g: (x: number) => number): number =>
    [b1, b2, b3, b4].reduce((sum, b, k) => sum + b * f(2 * (k + 1) * xi) * g(2 * (k + 1) * eta), start);
  const north = k0 * aRoof * series(xi, Math.sin, Math.cosh);
  const east = k0 * aRoof * series(eta, Math.cos, Math.sinh) + 500000;
  return { n: north, e: east };
}

/** A box around Sweden in SWEREF99 TM (Smygehuk to Treriksröset, Koster to Haparanda) with a margin. */
export const SWEDEN_SWEREF_BOUNDS = {
  minN: 6_100_000,
  maxN: 7_700_000,
  minE: 250_000,
  maxE: 950_000,
} as const;

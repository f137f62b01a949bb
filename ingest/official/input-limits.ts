/**
 * Bounds on what an official download may unpack to, with their defaults; REGDATA_INGEST_MAX_UNZIPPED_BYTES
 * and REGDATA_INGEST_MAX_UNZIP_RATIO (src/config.ts) override them. Kept apart from the unzipping code so
 * that reading the configuration loads no zip library.
 */
export interface UnpackLimits {
  /** Bytes one zip member or gzip file may inflate to. */
  maxBytes: number;
  /** Inflated bytes per compressed byte a member may reach (once it is over RATIO_FLOOR_BYTES). */
  maxRatio: number;
}

export const UNPACK_LIMIT_DEFAULTS: UnpackLimits = {
  /**
   * 32 GiB: the largest member of a real download is RIK's general-data JSON at 4-5 GB unzipped
   * (registry-formats.md 1.1; PRH's is 1.45 GB, Bolagsverket's 977 MB), so this is over six times it, room
   * for years of growth, and still refuses a bomb long before it fills a disk.
   */
  maxBytes: 32 * 2 ** 30,
  /**
   * 100: the real downloads inflate 4 to 15 times (Bolagsverket 245 MB → 977 MB, RIK's 2024 annual-report
   * lines 24 MB → 319 MB, PRH 96 MB → 1.45 GB); deflate reaches about 1,030 on a run of one byte, which is
   * what a zip bomb is.
   */
  maxRatio: 100,
};

/** Below this many inflated bytes a ratio says nothing (a small file of spaces inflates 50 times) and costs nothing. */
export const RATIO_FLOOR_BYTES = 1 << 20;

/** Space left free on the work folder's file system after an unpacked file, so the run can still stage it. */
export const FREE_SPACE_MARGIN_BYTES = 64 << 20;

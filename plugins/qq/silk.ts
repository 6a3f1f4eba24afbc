/**
 * QQ records voice messages in SILK (Tencent's "#!SILK_V3" flavour), which neither the attachment
 * type check nor ffmpeg reads. A SILK clip is decoded here to 16-bit mono PCM with silk-wasm (MIT;
 * its WebAssembly is embedded in the compiled binary by scripts/build.ts) and wrapped as WAV, which
 * the media plugin transcribes like any other voice message. Other bytes pass through unchanged.
 */
import { decode, getDuration, isSilk } from "silk-wasm";

/** The rate QQ's SILK clips are decoded at. */
const SILK_RATE = 24_000;
/** Longer clips are refused before decoding (QQ's own limit is 60 s; PCM is 48 KB a second). */
export const MAX_SILK_SECONDS = 300;

/** A WAV file of 16-bit little-endian mono `pcm` at `rate`. */
export function wavOf(pcm: Uint8Array, rate: number): Uint8Array {
  const out = new Uint8Array(44 + pcm.length);
  const dv = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, "RIFF");
  dv.setUint32(4, 36 + pcm.length, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  dv.setUint32(16, 16, true); // fmt chunk size
  dv.setUint16(20, 1, true); // PCM
  dv.setUint16(22, 1, true); // mono
  dv.setUint32(24, rate, true);
  dv.setUint32(28, rate * 2, true); // bytes a second
  dv.setUint16(32, 2, true); // bytes a frame
  dv.setUint16(34, 16, true); // bits a sample
  ascii(36, "data");
  dv.setUint32(40, pcm.length, true);
  out.set(pcm, 44);
  return out;
}

/** `bytes` as a file the attachment path takes: a SILK clip becomes WAV; anything else is returned as is. */
export async function playableVoice(bytes: Uint8Array): Promise<Uint8Array> {
  if (!isSilk(bytes)) return bytes;
  const seconds = getDuration(bytes) / 1000;
  if (seconds > MAX_SILK_SECONDS)
    throw new Error(`a SILK voice message of ${Math.round(seconds)} s is over the ${MAX_SILK_SECONDS} s limit`);
  let pcm: Uint8Array;
  try {
    pcm = (await decode(bytes, SILK_RATE)).data;
  } catch (err) {
    throw new Error(`the SILK voice message could not be decoded: ${(err as Error).message}`);
  }
  return wavOf(pcm, SILK_RATE);
}

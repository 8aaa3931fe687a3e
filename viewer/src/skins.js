// The player figures' heads (docs/guide/viewer.md, "Players"): each player's head is drawn from a
// 32×16 cell of one atlas laid out as the head of a Minecraft skin (right, front, left, back side
// by side at y 8–16, top and bottom above the front and left). The cell holds the player's skin
// when `skin_textures` names one the browser can load (render.md §2), else a pattern generated
// from the player's uuid or key: no game assets.
import * as THREE from 'three';

/** 32-bit FNV-1a of a string: the generated pattern's seed. */
export function seedOf(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; ++i) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The skin URL of a player's `skin_textures` (render.md §2): its `default` entry, else the first by
 * name; the entry's `value` is base64 of `{"textures":{"SKIN":{"url":…}}}`. null when there is
 * none or it does not decode to an http(s) URL.
 */
const urls = new WeakMap(); // skin_textures object -> its URL, decoded once
export function skinUrl(textures) {
  if (!textures || typeof textures !== 'object') return null;
  if (!urls.has(textures)) urls.set(textures, decodeSkinUrl(textures));
  return urls.get(textures);
}
function decodeSkinUrl(textures) {
  const entry = textures.default ?? textures[Object.keys(textures).sort()[0]];
  if (!entry || typeof entry.value !== 'string') return null;
  try {
    const url = JSON.parse(atob(entry.value))?.textures?.SKIN?.url;
    return typeof url === 'string' && /^https?:\/\//.test(url) ? url : null;
  } catch {
    return null;
  }
}

const SKIN_TONES = ['#f0c8a0', '#d9a066', '#a8704a', '#6e4a30', '#ffdfc4', '#c58c5c'];
const hsl = (h, s, l) => `hsl(${h} ${s}% ${l}%)`;

/**
 * Draws the generated head for `seed` into the 32×16 cell at (x, y) of `g`: skin tone, hair on the
 * top, back and upper sides, a fringe, two eyes (white and a coloured iris) and a mouth on the
 * front. The seed's bits pick the skin tone (6), the hair's hue (12, 30° apart) and shade, the
 * iris's hue (8) and the fringe's shape (4), so players look different.
 */
export function drawGeneratedHead(g, x, y, seed) {
  const skin = SKIN_TONES[seed % SKIN_TONES.length];
  const hair = hsl(((seed >>> 3) % 12) * 30, 45 + ((seed >>> 7) % 4) * 10, 20 + ((seed >>> 12) % 4) * 8);
  const iris = hsl(((seed >>> 14) % 8) * 45, 70, 40);
  const fringe = (seed >>> 24) & 3;
  const px = (u, v, w, h, c) => { g.fillStyle = c; g.fillRect(x + u, y + v, w, h); };
  px(0, 0, 32, 16, skin);
  px(8, 0, 8, 8, hair); // top
  px(24, 8, 8, 8, hair); // back
  px(0, 8, 8, 3, hair); // right side: upper rows and the back column
  px(0, 8, 2, 6, hair);
  px(16, 8, 8, 3, hair); // left side
  px(22, 8, 2, 6, hair);
  px(8, 8, 8, 2, hair); // fringe: straight, parted low on the left or right, or with bangs
  if (fringe === 1) px(8, 10, 4, 1, hair);
  if (fringe === 2) px(12, 10, 4, 1, hair);
  if (fringe === 3) { px(8, 10, 2, 1, hair); px(11, 10, 2, 1, hair); px(14, 10, 2, 1, hair); }
  px(9, 12, 2, 1, '#ffffff'); // eyes: white outside, iris inside
  px(10, 12, 1, 1, iris);
  px(13, 12, 2, 1, '#ffffff');
  px(13, 12, 1, 1, iris);
  px(11, 14, 2, 1, '#7a3b2e'); // mouth
}

/**
 * Heads in one canvas texture of 32×16 cells: cell(key, draw) gives the key's rectangle in texture
 * coordinates [u, v, width, height], drawing it with draw(g, x, y) the first time. When every cell
 * is taken the atlas starts again (reset(), then cell() for the heads in use).
 */
export class HeadAtlas {
  constructor(columns = 16, rows = 64) {
    this.columns = columns;
    this.rows = rows;
    this.canvas = document.createElement('canvas');
    this.canvas.width = columns * 32;
    this.canvas.height = rows * 16;
    this.g = this.canvas.getContext('2d', { willReadFrequently: false });
    this.g.imageSmoothingEnabled = false;
    this.texture = new THREE.CanvasTexture(this.canvas);
    this.texture.colorSpace = THREE.SRGBColorSpace;
    this.texture.flipY = false;
    // Pixel art: nearest texels, no mipmaps.
    this.texture.generateMipmaps = false;
    this.texture.minFilter = THREE.NearestFilter;
    this.texture.magFilter = THREE.NearestFilter;
    this.cells = new Map();
  }

  get full() {
    return this.cells.size >= this.columns * this.rows;
  }

  reset() {
    this.cells.clear();
    this.g.clearRect(0, 0, this.canvas.width, this.canvas.height);
    this.texture.needsUpdate = true;
  }

  cell(key, draw) {
    let rect = this.cells.get(key);
    if (rect) return rect;
    const i = this.cells.size % (this.columns * this.rows);
    const x = (i % this.columns) * 32;
    const y = Math.floor(i / this.columns) * 16;
    this.g.clearRect(x, y, 32, 16);
    draw(this.g, x, y);
    // flipY is off: v grows downwards in the canvas; the geometry's v = 1 is the cell's top row.
    rect = [x / this.canvas.width, (y + 16) / this.canvas.height, 32 / this.canvas.width, -16 / this.canvas.height];
    this.cells.set(key, rect);
    this.texture.needsUpdate = true;
    return rect;
  }
}

/** A skin image's head (and its hat layer over it) into the 32×16 cell at (x, y). */
export function drawSkinHead(g, x, y, image) {
  g.drawImage(image, 0, 0, 32, 16, x, y, 32, 16);
  g.drawImage(image, 32, 0, 32, 16, x, y, 32, 16);
}

/** The mean colour of a skin's torso front (20,20)–(28,32), for the figure's body. */
export function torsoColour(image) {
  const c = document.createElement('canvas');
  c.width = 8;
  c.height = 12;
  const g = c.getContext('2d');
  g.drawImage(image, 20, 20, 8, 12, 0, 0, 8, 12);
  const d = g.getImageData(0, 0, 8, 12).data;
  let r = 0;
  let gr = 0;
  let b = 0;
  let n = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] < 128) continue;
    r += d[i];
    gr += d[i + 1];
    b += d[i + 2];
    ++n;
  }
  return n ? new THREE.Color().setRGB(r / n / 255, gr / n / 255, b / n / 255, THREE.SRGBColorSpace) : null;
}

/**
 * Skin images by URL, loaded once each by the browser (cross-origin, so a server that does not
 * allow it counts as unreachable): state(url) is 'loading', 'loaded' or 'failed'; `onChange` runs
 * when one finishes.
 */
export class SkinImages {
  constructor(onChange) {
    this.onChange = onChange;
    this.images = new Map();
  }

  get(url) {
    let e = this.images.get(url);
    if (!e) {
      const image = new Image();
      image.crossOrigin = 'anonymous';
      e = { state: 'loading', image, torso: null };
      image.onload = () => {
        // A skin is 64×64 (or the older 64×32); anything else is not one.
        const ok = image.naturalWidth === 64 && (image.naturalHeight === 64 || image.naturalHeight === 32);
        e.state = ok ? 'loaded' : 'failed';
        if (ok) e.torso = torsoColour(image);
        this.onChange();
      };
      image.onerror = () => {
        e.state = 'failed';
        this.onChange();
      };
      image.src = url;
      this.images.set(url, e);
    }
    return e;
  }
}

/**
 * The head box (0.5 blocks, centred at `centre`) with texture coordinates into a 32×16 head cell:
 * each face reads its region of the skin layout, seen from outside; the front is +Z.
 */
export function headGeometry(centre) {
  const g = new THREE.BoxGeometry(0.5, 0.5, 0.5);
  const pos = g.getAttribute('position');
  const normal = g.getAttribute('normal');
  const uv = g.getAttribute('uv');
  const eighth = (a) => ((a + 0.25) / 0.5) * 8; // -0.25..0.25 -> 0..8 texels
  for (let i = 0; i < pos.count; ++i) {
    const x = pos.getX(i);
    const y = pos.getY(i);
    const z = pos.getZ(i);
    const down = 8 - eighth(y); // from the top edge of a side face
    let u;
    let v;
    if (normal.getZ(i) > 0.5) [u, v] = [8 + eighth(x), 8 + down]; // front
    else if (normal.getZ(i) < -0.5) [u, v] = [24 + 8 - eighth(x), 8 + down]; // back
    else if (normal.getX(i) < -0.5) [u, v] = [eighth(z), 8 + down]; // the player's right
    else if (normal.getX(i) > 0.5) [u, v] = [16 + 8 - eighth(z), 8 + down]; // the player's left
    else if (normal.getY(i) > 0.5) [u, v] = [8 + eighth(x), eighth(z)]; // top, its lower edge at the front
    else [u, v] = [16 + eighth(x), eighth(z)]; // bottom
    uv.setXY(i, u / 32, 1 - v / 16);
  }
  return g.translate(centre[0], centre[1], centre[2]);
}

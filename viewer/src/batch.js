// Cheap drawing for the viewer (docs/guide/viewer.md, "Drawing"): every display of one look (block
// cubes, skin-part cubes, labelled quads) is an instance of one InstancedMesh, so a scene of
// hundreds of displays is a handful of draw calls; labels share one texture atlas. Nothing here
// allocates per frame: the instances are rewritten only when the scene changes.
import * as THREE from 'three';

/** One InstancedMesh whose instances are rewritten as a whole: begin(), add() each, end(). */
export class Batch {
  /**
   * geometry: shared by the instances; material: shared; parent: the group it is drawn in.
   * perInstance: optional {name: itemSize} attributes set with add()'s `extra`.
   */
  constructor(geometry, material, parent, perInstance = {}) {
    this.geometry = geometry;
    this.material = material;
    this.parent = parent;
    this.perInstance = perInstance;
    this.capacity = 0;
    this.n = 0;
    this.handles = [];
    this.mesh = null;
    this.grow(64);
  }

  grow(capacity) {
    const old = this.mesh;
    // The per-instance attributes live on the geometry: each batch has its own clone.
    const geometry = Object.keys(this.perInstance).length ? this.geometry.clone() : this.geometry;
    for (const [name, size] of Object.entries(this.perInstance)) {
      const a = new THREE.InstancedBufferAttribute(new Float32Array(capacity * size), size);
      a.setUsage(THREE.DynamicDrawUsage);
      if (old) a.array.set(old.geometry.getAttribute(name).array);
      geometry.setAttribute(name, a);
    }
    const mesh = new THREE.InstancedMesh(geometry, this.material, capacity);
    mesh.instanceMatrix.setUsage(THREE.DynamicDrawUsage);
    mesh.instanceColor = new THREE.InstancedBufferAttribute(new Float32Array(capacity * 3), 3);
    mesh.instanceColor.setUsage(THREE.DynamicDrawUsage);
    if (old) {
      mesh.instanceMatrix.array.set(old.instanceMatrix.array);
      mesh.instanceColor.array.set(old.instanceColor.array);
      this.parent.remove(old);
      if (old.geometry !== this.geometry) old.geometry.dispose();
      old.dispose();
    }
    mesh.count = this.n;
    mesh.frustumCulled = false; // the instances move every tick; drawing a few off screen is cheap
    this.parent.add(mesh);
    this.mesh = mesh;
    this.capacity = capacity;
  }

  begin() {
    this.n = 0;
  }

  /** An instance: its handle (for picking), world matrix, colour and per-instance values. */
  add(handle, matrix, colour, extra) {
    if (this.n === this.capacity) this.grow(this.capacity * 2);
    const i = this.n++;
    this.handles[i] = handle;
    matrix.toArray(this.mesh.instanceMatrix.array, i * 16);
    colour.toArray(this.mesh.instanceColor.array, i * 3);
    if (extra) {
      for (const name of Object.keys(extra)) {
        const a = this.mesh.geometry.getAttribute(name);
        const v = extra[name];
        for (let k = 0; k < a.itemSize; ++k) a.array[i * a.itemSize + k] = v[k];
      }
    }
  }

  end() {
    const m = this.mesh;
    m.count = this.n;
    this.handles.length = this.n;
    m.instanceMatrix.needsUpdate = true;
    m.instanceColor.needsUpdate = true;
    for (const name of Object.keys(this.perInstance)) m.geometry.getAttribute(name).needsUpdate = true;
    m.boundingSphere = null; // recomputed by the next raycast (click to inspect)
  }
}

/**
 * Labels drawn once into one canvas texture of CELLS cells of 256×64 pixels; cell(text, bg, fg)
 * gives the cell's rectangle in texture coordinates [u, v, width, height]. When every cell is
 * taken, the atlas starts again from the labels in use (reset(), then cell() for each).
 */
export class LabelAtlas {
  constructor(columns = 8, rows = 32) {
    this.columns = columns;
    this.rows = rows;
    this.canvas = document.createElement('canvas');
    this.canvas.width = columns * 256;
    this.canvas.height = rows * 64;
    this.g = this.canvas.getContext('2d');
    this.texture = new THREE.CanvasTexture(this.canvas);
    this.texture.colorSpace = THREE.SRGBColorSpace;
    this.texture.flipY = false;
    // No mipmaps: labels are read near their size, and one texture read per fragment is cheaper.
    this.texture.generateMipmaps = false;
    this.texture.minFilter = THREE.LinearFilter;
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

  cell(text, bg, fg) {
    const key = `${bg}|${fg}|${text}`;
    let rect = this.cells.get(key);
    if (rect) return rect;
    const i = this.cells.size % (this.columns * this.rows); // when full, overwrite the first cells
    const x = (i % this.columns) * 256;
    const y = Math.floor(i / this.columns) * 64;
    const g = this.g;
    g.clearRect(x, y, 256, 64);
    g.fillStyle = bg;
    g.fillRect(x, y, 256, 64);
    g.fillStyle = fg;
    g.font = 'bold 28px sans-serif';
    g.textAlign = 'center';
    g.textBaseline = 'middle';
    g.fillText(text.slice(0, 18), x + 128, y + 32);
    // flipY is off: v grows downwards in the canvas; the quad's top edge has uv.y = 1.
    rect = [x / this.canvas.width, (y + 64) / this.canvas.height, 256 / this.canvas.width, -64 / this.canvas.height];
    this.cells.set(key, rect);
    this.texture.needsUpdate = true;
    return rect;
  }
}

/** A MeshBasicMaterial that reads each instance's atlas cell from the `cell` attribute. */
export function atlasMaterial(texture) {
  // One pass for both sides (a transparent double-sided material is otherwise drawn twice).
  return cellMapped(new THREE.MeshBasicMaterial({ map: texture, transparent: true, side: THREE.DoubleSide, forceSinglePass: true }));
}

/**
 * `m` (a material with a `map`) reading each instance's rectangle of the map from the `cell`
 * attribute [u, v, width, height]: the geometry's texture coordinates 0..1 span the cell.
 */
export function cellMapped(m) {
  m.onBeforeCompile = (shader) => {
    shader.vertexShader = shader.vertexShader
      .replace('#include <uv_pars_vertex>', '#include <uv_pars_vertex>\nattribute vec4 cell;')
      .replace('#include <uv_vertex>', '#include <uv_vertex>\nvMapUv = cell.xy + vMapUv * cell.zw;');
  };
  return m;
}

/** Line segments rewritten as a whole (the offers' lines of sight). */
export class LineBatch {
  constructor(material, parent) {
    this.lines = new THREE.LineSegments(new THREE.BufferGeometry(), material);
    this.lines.frustumCulled = false;
    this.parent = parent;
    parent.add(this.lines);
    this.n = 0; // vertices
    this.reserve(1024);
  }

  reserve(vertices) {
    const old = this.lines.geometry.getAttribute('position');
    if (old && old.count >= vertices) return;
    let capacity = old ? old.count : 1024;
    while (capacity < vertices) capacity *= 2;
    const a = new THREE.BufferAttribute(new Float32Array(capacity * 3), 3);
    a.setUsage(THREE.DynamicDrawUsage);
    if (old) a.array.set(old.array);
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', a);
    this.lines.geometry.dispose();
    this.lines.geometry = g;
  }

  begin() {
    this.n = 0;
  }

  addSegment(a, b) {
    this.reserve(this.n + 2);
    const out = this.lines.geometry.getAttribute('position').array;
    a.toArray(out, 3 * this.n);
    b.toArray(out, 3 * this.n + 3);
    this.n += 2;
  }

  end() {
    const g = this.lines.geometry;
    g.getAttribute('position').needsUpdate = true;
    g.setDrawRange(0, this.n);
  }
}

/**
 * `geometry` with a vertex colour per face from its normal (top 1, sides 0.88 and 0.75, bottom
 * 0.5): boxes look lit with MeshBasicMaterial({vertexColors: true}), whose fragments cost far less
 * than a lit material's when the browser renders on the CPU.
 */
export function shaded(geometry) {
  const n = geometry.getAttribute('normal');
  const c = new Float32Array(n.count * 3);
  for (let i = 0; i < n.count; ++i) {
    const y = n.getY(i);
    const s = y > 0.5 ? 1 : y < -0.5 ? 0.5 : Math.abs(n.getX(i)) > 0.5 ? 0.75 : 0.88;
    c.fill(s, 3 * i, 3 * i + 3);
  }
  geometry.setAttribute('color', new THREE.BufferAttribute(c, 3));
  return geometry;
}

/**
 * The flat colour of a block display with its cube's edges drawn dark, about a pixel wide, in the
 * fragment shader (no line draw): `geometry` is a unit cube from 0 to 1 on each axis.
 */
export function edgedMaterial(edgeColour = 0x111111) {
  const m = new THREE.MeshBasicMaterial();
  const edge = new THREE.Color(edgeColour);
  m.onBeforeCompile = (shader) => {
    shader.uniforms.edgeColour = { value: edge };
    shader.vertexShader = shader.vertexShader
      .replace('#include <common>', '#include <common>\nvarying vec3 vCube;')
      .replace('#include <begin_vertex>', '#include <begin_vertex>\nvCube = position;');
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <common>', '#include <common>\nvarying vec3 vCube;\nuniform vec3 edgeColour;')
      .replace('#include <opaque_fragment>', `// Near two faces at once: on an edge.
vec3 toFace = min(vCube, 1.0 - vCube);
vec3 onEdge = step(toFace, 1.2 * fwidth(vCube));
if (onEdge.x + onEdge.y + onEdge.z >= 2.0) outgoingLight = edgeColour;
#include <opaque_fragment>`);
  };
  return m;
}

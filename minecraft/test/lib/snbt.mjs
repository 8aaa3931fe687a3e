// A small SNBT reader for the checks: the frames carry content as SNBT (protocol.md §6,
// `display.spawn` item/block). Compounds become objects, lists and arrays become arrays, strings
// strings, numbers (any suffix) and true/false numbers. Throws on malformed text.

export function parseSnbt (text) {
  let i = 0
  const fail = (what) => { throw new Error(`SNBT: ${what} at ${i} in ${JSON.stringify(text)}`) }
  const ws = () => { while (i < text.length && /\s/.test(text[i])) i++ }
  const unquotedChar = (c) => /[0-9A-Za-z_\-.+]/.test(c)

  function quoted () {
    const q = text[i++]
    let out = ''
    while (i < text.length && text[i] !== q) {
      if (text[i] === '\\') {
        i++
        if (i >= text.length) fail('unterminated escape')
      }
      out += text[i++]
    }
    if (text[i] !== q) fail('unterminated string')
    i++
    return out
  }

  function key () {
    ws()
    if (text[i] === '"' || text[i] === "'") return quoted()
    const start = i
    while (i < text.length && unquotedChar(text[i])) i++
    if (start === i) fail('expected a key')
    return text.slice(start, i)
  }

  function scalar (raw) {
    if (raw === 'true') return 1
    if (raw === 'false') return 0
    const m = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)([bslfdBSLFD]?)$/.exec(raw)
    if (m) return Number(m[1])
    return raw
  }

  function value () {
    ws()
    const c = text[i]
    if (c === '{') {
      i++
      const obj = {}
      ws()
      if (text[i] === '}') { i++; return obj }
      for (;;) {
        const k = key()
        ws()
        if (text[i] !== ':') fail('expected :')
        i++
        obj[k] = value()
        ws()
        if (text[i] === ',') { i++; continue }
        if (text[i] === '}') { i++; return obj }
        fail('expected , or }')
      }
    }
    if (c === '[') {
      i++
      ws()
      if (/[BIL]/.test(text[i]) && text[i + 1] === ';') i += 2
      const arr = []
      ws()
      if (text[i] === ']') { i++; return arr }
      for (;;) {
        arr.push(value())
        ws()
        if (text[i] === ',') { i++; continue }
        if (text[i] === ']') { i++; return arr }
        fail('expected , or ]')
      }
    }
    if (c === '"' || c === "'") return quoted()
    const start = i
    while (i < text.length && unquotedChar(text[i])) i++
    if (start === i) fail('expected a value')
    return scalar(text.slice(start, i))
  }

  const v = value()
  ws()
  if (i !== text.length) fail('trailing text')
  return v
}

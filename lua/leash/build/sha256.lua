--- SHA-256 of a file, in Lua, off the main loop.
---
--- Verifies a downloaded library without depending on `sha256sum`, `shasum` or
--- `certutil` (which differ per OS, and a shadowing copy on PATH has broken other
--- plugins' checks). `vim.fn.sha256()` cannot be used: a library contains NUL bytes,
--- which turn the string into a Blob that it refuses.
local M = {}
local H = {}

-- Module definition ==========================================================

--- Hex digest of a string (on the calling thread).
---@param data string
---@return string hex 64 lowercase hex digits
function M.hex(data) return H.digest(data) end

--- Hash `path` on a libuv worker thread; `on_done(hex)` or `on_done(nil, err)` runs on
--- the main loop (scheduled, so it may call the API).
---@param path string
---@param on_done fun(hex?: string, err?: string)
function M.file(path, on_done)
  local work = vim.uv.new_work(H.hash_file, function(hex, err)
    vim.schedule(function() on_done(hex, err) end)
  end)
  work:queue(path, string.dump(H.digest))
end

-- Helper functionality =======================================================

--- Runs on a worker thread: no upvalues, nothing of `vim`; the digest function comes
--- in as bytecode because a worker's Lua state shares nothing with the editor's.
---@param path string
---@param digest_code string
---@return string? hex
---@return string? err
function H.hash_file(path, digest_code)
  local file, err = io.open(path, 'rb')
  if not file then return nil, err end
  local data = file:read('*a')
  file:close()
  local ok, res = pcall(loadstring(digest_code), data)
  if not ok then return nil, tostring(res) end
  return res
end

--- FIPS 180-4 SHA-256 with LuaJIT's `bit` library. Self-contained (no upvalues) so it
--- can be dumped to bytecode and run on a worker thread.
---@param data string
---@return string
function H.digest(data)
  local bit = require('bit')
  local band, bor, bxor, bnot, ror, rshift, lshift, tobit, tohex =
    bit.band, bit.bor, bit.bxor, bit.bnot, bit.ror, bit.rshift, bit.lshift, bit.tobit, bit.tohex
  local byte = string.byte
  local k = {
    0x428a2f98,
    0x71374491,
    0xb5c0fbcf,
    0xe9b5dba5,
    0x3956c25b,
    0x59f111f1,
    0x923f82a4,
    0xab1c5ed5,
    0xd807aa98,
    0x12835b01,
    0x243185be,
    0x550c7dc3,
    0x72be5d74,
    0x80deb1fe,
    0x9bdc06a7,
    0xc19bf174,
    0xe49b69c1,
    0xefbe4786,
    0x0fc19dc6,
    0x240ca1cc,
    0x2de92c6f,
    0x4a7484aa,
    0x5cb0a9dc,
    0x76f988da,
    0x983e5152,
    0xa831c66d,
    0xb00327c8,
    0xbf597fc7,
    0xc6e00bf3,
    0xd5a79147,
    0x06ca6351,
    0x14292967,
    0x27b70a85,
    0x2e1b2138,
    0x4d2c6dfc,
    0x53380d13,
    0x650a7354,
    0x766a0abb,
    0x81c2c92e,
    0x92722c85,
    0xa2bfe8a1,
    0xa81a664b,
    0xc24b8b70,
    0xc76c51a3,
    0xd192e819,
    0xd6990624,
    0xf40e3585,
    0x106aa070,
    0x19a4c116,
    0x1e376c08,
    0x2748774c,
    0x34b0bcb5,
    0x391c0cb3,
    0x4ed8aa4a,
    0x5b9cca4f,
    0x682e6ff3,
    0x748f82ee,
    0x78a5636f,
    0x84c87814,
    0x8cc70208,
    0x90befffa,
    0xa4506ceb,
    0xbef9a3f7,
    0xc67178f2,
  }
  local h0, h1, h2, h3 = 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a
  local h4, h5, h6, h7 = 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19

  -- Padding: 0x80, zeros up to 56 mod 64, then the length in bits, big-endian.
  local len = #data
  local zeros = (55 - len) % 64
  local bits = len * 8
  local hi, lo = math.floor(bits / 0x100000000), bits % 0x100000000
  local tail = { '\128', string.rep('\0', zeros) }
  for _, word in ipairs({ hi, lo }) do
    tail[#tail + 1] = string.char(
      math.floor(word / 0x1000000) % 256,
      math.floor(word / 0x10000) % 256,
      math.floor(word / 0x100) % 256,
      word % 256
    )
  end
  data = data .. table.concat(tail)

  local w = {}
  for pos = 1, #data, 64 do
    for j = 0, 15 do
      local b1, b2, b3, b4 = byte(data, pos + j * 4, pos + j * 4 + 3)
      w[j] = bor(lshift(b1, 24), lshift(b2, 16), lshift(b3, 8), b4)
    end
    for j = 16, 63 do
      local x, y = w[j - 15], w[j - 2]
      local s0 = bxor(ror(x, 7), ror(x, 18), rshift(x, 3))
      local s1 = bxor(ror(y, 17), ror(y, 19), rshift(y, 10))
      w[j] = tobit(w[j - 16] + s0 + w[j - 7] + s1)
    end
    local a, b, c, d, e, f, g, h = h0, h1, h2, h3, h4, h5, h6, h7
    for j = 0, 63 do
      local s1 = bxor(ror(e, 6), ror(e, 11), ror(e, 25))
      local ch = bxor(band(e, f), band(bnot(e), g))
      local t1 = tobit(h + s1 + ch + k[j + 1] + w[j])
      local s0 = bxor(ror(a, 2), ror(a, 13), ror(a, 22))
      local maj = bxor(band(a, b), band(a, c), band(b, c))
      h, g, f, e = g, f, e, tobit(d + t1)
      d, c, b, a = c, b, a, tobit(t1 + s0 + maj)
    end
    h0, h1, h2, h3 = tobit(h0 + a), tobit(h1 + b), tobit(h2 + c), tobit(h3 + d)
    h4, h5, h6, h7 = tobit(h4 + e), tobit(h5 + f), tobit(h6 + g), tobit(h7 + h)
  end
  return tohex(h0) .. tohex(h1) .. tohex(h2) .. tohex(h3) .. tohex(h4) .. tohex(h5) .. tohex(h6) .. tohex(h7)
end

return M

-- For specs: an HTTP server on 127.0.0.1 speaking a model provider's wire format, and
-- the leash config that plans with it. Loaded with
-- `dofile('tests/nvim/model_server.lua')` (not a spec: the runner runs `*_spec.lua`).
local M = {}
local H = {}
local uv = vim.uv

--- The body a provider answers `plan` with, in the wire format the request's path names.
function H.answer_body(path, plan)
  local text = vim.json.encode(plan)
  if path:find('/chat/completions', 1, true) then
    return vim.json.encode({
      id = 'chatcmpl-test',
      object = 'chat.completion',
      model = 'spec-model',
      choices = { { index = 0, message = { role = 'assistant', content = text }, finish_reason = 'stop' } },
      usage = { prompt_tokens = 10, completion_tokens = 10 },
    })
  elseif path:find('/api/chat', 1, true) then
    return vim.json.encode({
      model = 'spec-model',
      message = { role = 'assistant', content = text },
      done = true,
      done_reason = 'stop',
    })
  end
  return vim.json.encode({
    id = 'msg_test',
    type = 'message',
    role = 'assistant',
    model = 'claude-haiku-4-5',
    content = { { type = 'text', text = text } },
    stop_reason = 'end_turn',
    usage = { input_tokens = 10, output_tokens = 10 },
  })
end

--- An HTTP server on 127.0.0.1 inside this Neovim, answering each request after
--- `delay_ms` with the next of `plans` (the last repeats; one plan alone is fine), in the
--- wire format of the request's path (Anthropic, OpenAI or Ollama). Served by the same
--- event loop the responsiveness test measures, so it also proves that loop keeps running.
---@param plans table[]|table
---@param delay_ms integer
function M.server(plans, delay_ms)
  if plans.steps then plans = { plans } end
  local server = uv.new_tcp()
  assert(server:bind('127.0.0.1', 0))
  local s = { requests = {}, closed_early = 0, clients = {} }
  server:listen(16, function()
    local client = uv.new_tcp()
    server:accept(client)
    s.clients[#s.clients + 1] = client
    local buf, answered = '', false
    client:read_start(function(err, data)
      if err or not data then
        if not answered then s.closed_early = s.closed_early + 1 end
        answered = true
        if not client:is_closing() then client:close() end
        return
      end
      buf = buf .. data
      local head_end = buf:find('\r\n\r\n', 1, true)
      if not head_end or answered then return end
      local len = tonumber(buf:match('[Cc]ontent%-[Ll]ength:%s*(%d+)')) or 0
      if #buf < head_end + 3 + len then return end
      s.requests[#s.requests + 1] = { head = buf:sub(1, head_end), body = buf:sub(head_end + 4) }
      local path = buf:match('^POST (%S+)') or ''
      local item = plans[math.min(#s.requests, #plans)]
      -- `{ rate_limited_ms = N }`: Anthropic's 429 asking to retry after N ms.
      local status, extra, body = '200 OK', '', nil
      if type(item) == 'table' and item.rate_limited_ms then
        status, extra = '429 Too Many Requests', ('retry-after-ms: %d\r\n'):format(item.rate_limited_ms)
        body = '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}'
      else
        body = H.answer_body(path, item)
      end
      local timer = uv.new_timer()
      timer:start(delay_ms, 0, function()
        timer:close()
        if answered or client:is_closing() then return end
        answered = true
        client:write(
          ('HTTP/1.1 %s\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\nConnection: close\r\n\r\n%s'):format(
            status,
            extra,
            #body,
            body
          ),
          function()
            if not client:is_closing() then client:close() end
          end
        )
      end)
    end)
  end)
  s.port = server:getsockname().port
  function s.stop()
    for _, c in ipairs(s.clients) do
      if not c:is_closing() then c:close() end
    end
    server:close()
  end
  return s
end

--- Configure leash to plan with the server on `port` (`kind`: anthropic, openai, ollama)
--- as the provider `spec`: `extra` is merged into the config, `fields` into the
--- provider's table (vim.NIL removes a field).
function M.use(port, kind, extra, fields)
  vim.env.LEASH_SPEC_KEY = 'sk-spec-secret-0123456789'
  kind = kind or 'anthropic'
  local url = 'http://127.0.0.1:' .. port .. (kind == 'openai' and '/v1' or '')
  local spec = vim.tbl_extend('force', {
    kind = kind,
    url = url,
    model = kind == 'anthropic' and 'claude-haiku-4-5' or 'spec-model',
    api_key_env = 'LEASH_SPEC_KEY',
    timeout_ms = 10000,
  }, fields or {})
  for k, v in pairs(spec) do
    if v == vim.NIL then spec[k] = nil end
  end
  require('leash').setup(vim.tbl_extend('force', { provider = 'spec', providers = { spec = spec } }, extra or {}))
end

return M

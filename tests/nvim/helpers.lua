-- What several spec files need, in one place: `local helpers = dofile(root .. '/tests/nvim/helpers.lua')`.
local M = {}

--- Catalog entries by id (items) or key (settings).
---@param entries table[]
---@return table<string, table>
function M.index(entries)
  local by = {}
  for _, e in ipairs(entries) do
    by[e.id or e.key] = e
  end
  return by
end

--- Record every |vim.notify()| message until the returned function restores it.
---@return { msg: string, level?: integer }[] seen
---@return fun() restore
function M.capture_notify()
  local seen = {}
  local orig = vim.notify
  vim.notify = function(msg, level) seen[#seen + 1] = { msg = msg, level = level } end
  return seen, function() vim.notify = orig end
end

--- Write `lines` to `path`, making its folder first.
---@param path string
---@param lines string[]
function M.write(path, lines)
  vim.fn.mkdir(vim.fs.dirname(path), 'p')
  vim.fn.writefile(lines, path)
end

--- An in-process language server attached to the current buffer: it answers
--- `initialize` with `caps` and every other request with `handlers[method](params,
--- dispatchers)` (nil for a method it does not know; `dispatchers.server_request` sends
--- the client a request of the server's own, such as `workspace/applyEdit`). Returns the
--- client id once it is initialized.
---@param dir string the root folder
---@param handlers table<string, fun(params: table, dispatchers: table): any>
---@param caps table the server's capabilities
---@return integer id
function M.start_server(dir, handlers, caps)
  local id = vim.lsp.start({
    name = 'leash-spec',
    root_dir = dir,
    cmd = function(dispatchers)
      local closing = false
      return {
        request = function(method, params, callback)
          vim.schedule(function()
            if method == 'initialize' then return callback(nil, { capabilities = caps }) end
            local h = handlers[method]
            callback(nil, h and h(params, dispatchers) or nil)
          end)
          return true, 1
        end,
        notify = function(method)
          if method == 'exit' then dispatchers.on_exit(0, 15) end
          return true
        end,
        is_closing = function() return closing end,
        terminate = function()
          if closing then return end
          closing = true
          vim.schedule(function() dispatchers.on_exit(0, 15) end)
        end,
      }
    end,
  })
  assert(id, 'the language server did not start')
  vim.wait(2000, function()
    local c = vim.lsp.get_client_by_id(id)
    return c and c.initialized
  end)
  return id
end

return M

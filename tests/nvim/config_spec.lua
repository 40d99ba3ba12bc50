-- setup() validation.

describe('config', function()
  before_each(function() fresh() end)

  it('works without setup()', function()
    local cfg = require('leash.config').get()
    eq(nil, cfg.shortlist_limit, 'nil: the core decides (native default_shortlist_limit)')
    eq(true, cfg.confirm_before_run)
    eq(nil, cfg.provider)
  end)

  it('merges valid options', function()
    require('leash').setup({ shortlist_limit = 20, sources = { keymaps = false } })
    local cfg = require('leash.config').get()
    eq(20, cfg.shortlist_limit)
    eq(false, cfg.sources.keymaps)
    eq(true, cfg.sources.options)
  end)

  it('names an unknown key and suggests the closest', function()
    local err = raises(require('leash').setup, { shortlist_limt = 10 })
    eq("leash: unknown option 'shortlist_limt' (did you mean 'shortlist_limit'?)", err)
  end)

  it('names unknown nested keys by dotted path', function()
    local err = raises(require('leash').setup, { sources = { keymap = false } })
    eq("leash: unknown option 'sources.keymap' (did you mean 'sources.keymaps'?)", err)
  end)

  it('names the wrong type', function()
    eq(
      'leash: option confirm_before_run should be a boolean, not string',
      raises(require('leash').setup, {
        confirm_before_run = 'no',
      })
    )
    matches(
      'option shortlist_limit should be an integer from 1 to 500, not 0',
      raises(require('leash').setup, {
        shortlist_limit = 0,
      })
    )
    matches('option sources should be a table, not boolean', raises(require('leash').setup, { sources = true }))
  end)

  it('checks providers and that the chosen one exists', function()
    matches(
      "option providers.x.kind should be one of 'anthropic', 'openai', 'ollama'",
      raises(require('leash').setup, {
        providers = { x = { kind = 'gpt' } },
      })
    )
    matches('provider "nope" is not defined', raises(require('leash').setup, { provider = 'nope' }))
    require('leash').setup({ provider = 'local', providers = { ['local'] = { kind = 'ollama', model = 'm' } } })
    eq('local', require('leash.config').get().provider)
  end)
end)

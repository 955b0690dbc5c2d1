-- wrk script of `npm run bench`: each request drawn at random from a file of prepared requests.
--
--   wrk -t1 -c50 -d10s --latency -s bench/wrk-requests.lua http://127.0.0.1:PORT -- FILE CASE [once]
--
-- FILE holds one request a line, fields separated by tabs: method, path, API key, content type and
-- body (both empty for a GET; the body's backslashes, tabs, CRs and LFs escaped as \\, \t, \r, \n,
-- see bench/request-lines.ts): JSON, form and multipart bodies alike. Every request carries
-- `x-bench-case: CASE`, which the canned comparison servers answer by (the real server and the
-- contract floor ignore it). The requests are formatted once, in init: the load generator
-- must cost as little per request as it can, or it, not the server, sets the pace.
-- With `once`, the requests go in file order, each once, and wrk exits after the last: the
-- warm-up pass that fills the server's caches with the case's whole working set.
-- At the end one line `WRK_RESULT {...}` gives what the bench reads (latencies in µs).

local requests = {}
local count = 0
local once = false
local sent = 0
local UNESCAPES = { ["\\"] = "\\", t = "\t", r = "\r", n = "\n" }

function init(args)
  local file, case = args[1], args[2]
  once = args[3] == "once"
  for line in io.lines(file) do
    local method, path, key, media, body = line:match("^(%u+)\t([^\t]+)\t([^\t]+)\t([^\t]*)\t(.*)$")
    local headers = { ["x-api-key"] = key, ["x-bench-case"] = case }
    if media == "" then
      body = nil
    else
      headers["content-type"] = media
      body = body:gsub("\\(.)", UNESCAPES)
    end
    count = count + 1
    requests[count] = wrk.format(method, path, headers, body)
  end
  math.randomseed(os.time() + count)
end

function request()
  if not once then
    return requests[math.random(count)]
  end
  sent = sent + 1
  if sent > count then
    -- wrk itself runs for its whole duration whatever a thread does: end it (no summary).
    os.exit(0)
  end
  return requests[sent]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"non2xx":%d,"socketErrors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end

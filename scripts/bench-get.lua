-- wrk: GET a random seeded entity per request (ids from BENCH_IDS, one per line).
local ids = {}
for line in io.lines(os.getenv("BENCH_IDS")) do
  ids[#ids + 1] = line
end
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/v1alpha/entities/" .. ids[math.random(#ids)])
end

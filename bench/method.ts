// The "how to read this" part of BENCHMARKS.md, kept beside the code that does what it describes.

export const METHOD = `
## How to read this / method

- **Run it:** \`pnpm install && pnpm bench\` (about 4 minutes, half of it \`npm install\` of the package). It reports
  and never asserts: a missed target is listed above and the command still exits 0. \`pnpm bench round-trip\` (or
  \`memory\`, \`storm\`, \`failure\`, \`subtask\`, \`front-door\`, \`install\`) runs one part and prints it without rewriting this file;
  \`pnpm bench install --write\` also replaces that part's section here and in results.json (marked under its title).
- **Noise:** the machine is shared (other test suites may run at the same time) and has few cores, which the
  router, the simulated hosts and the bench itself all share. Compare ratios and orders of magnitude, not the
  last digit. Each figure is one run, not an average of runs, except where its name or note says median.
- **Forwarded round trip.** A real router (\`createRouter\`, memory chat adapter) and a real host
  (\`createHost\` with an echo handler) in the bench's process, connected over a real WebSocket on loopback.
  One round trip = \`chat.receive()\` → routing → \`forward\` frame → host → \`forward_response\` → the router
  hands the reply to the chat adapter (its \`sendText\` is tapped, so completion is exact, not polled).
  The baseline is a plain \`ws\` echo server and client in the same process, sending messages of the same size as
  the \`forward\` frame. N users each send their next message as soon as their previous reply arrives
  (closed loop). Both are warmed up before the first level (the forwarded path 3 s at 10 users, the echo 1 s:
  the forwarded path's code kept getting faster for its first seconds, about 4,000 → 5,000 msg/s at 10 users
  over the first four 1-second windows, and a router that serves users runs warm), and 0.5 s before each
  level; then each side is measured for 2.5 s in five 0.5 s slices, the two taking turns (raw, forwarded,
  raw, …), so a change in the shared machine's speed hits both alike (until 27 Nov: 0.5 s of warm-up and
  one 2.5 s window each, raw then forwarded, with the one-user level measured cold). The ratios are
  forwarded ÷ raw: how many raw WebSocket round trips one forwarded message costs. The two are not like for
  like: the forwarded path carries the delivery guarantees — the host commits each answer to its SQLite outbox
  before sending it (the commit's fsync runs on libuv's thread pool while the answer travels, since 27 Nov;
  before, the answer waited for it), the router records the delivery id and acknowledges
  it (\`push_ack\`, a third frame) — and the raw echo carries nothing. The "durable outbox commit" figure is
  a \`synchronous=FULL\` commit alone on the same disk: what the one-user target allows for it, though the
  answer no longer waits for it. Answers ready in
  the same turn of the event loop share one commit, and the router writes delivered ids in one commit per
  turn with \`synchronous=NORMAL\` (safe across a router crash; see the README's delivery guarantees).
  *CPU per message* is the bench process's (router and host together) user + system time over the
  measured window ÷ forwarded messages, against the echo's; *router.db commits per message* counts the
  commits of the router's per-turn batcher (every write on the path goes through it). A profile of the
  forwarding path alone: \`node --import tsx bench/profile-forwarding.ts [users] [s] [out]\`, summarised
  by \`bench/profile-summary.ts\` (see the profiles section above).
- **Idle memory.** The router runs alone in a child process (\`bench/router-process.ts\`, started with
  \`--expose-gc\`); simulated hosts (\`bench/sim-hosts.ts\`: bare \`ws\` clients that send the protocol's sample
  \`register\` frame with their own node id, each from an address of its own in 127/8 as real hosts come from
  theirs, and answer \`ping\` with \`pong\`) run in another. Before the baseline, 50 hosts connect and leave, so
  code every connection shares is already loaded. Each RSS sample
  follows two full GCs 200 ms apart; per host = (RSS at N − RSS with none) ÷ N, in KiB (1,024 bytes; the
  20 KB target is read as 20 KiB). Router settings are the defaults (heartbeat 30 s / 10 s, 16 MiB max payload).
  RSS is more than the JS heap: V8 grows its young generation while thousands of registrations survive
  their first collections (to 2 × 64 MiB at 10,000 hosts, kept resident afterwards), a cost that stops
  growing with N. What one host holds, by constructor: \`node --import tsx bench/heap-per-host.ts [N]\` (heap
  snapshots of the router at 0 and N idle hosts, compared; \`HEAP_SNAPSHOTS=0\` for the memory figures only).
- **Reconnect storm.** With N hosts registered, the router process is killed with SIGKILL (a crash; the
  hosts see 1006) and a new one is started on the same port and data directory. The simulated hosts reconnect
  with the host app's own policy, \`reconnectDelay\` from \`apps/host/src/link/backoff.ts\` with create-host.ts's
  settings (500 ms base, 30 s cap, full jitter including the first retry, reset on \`register_ok\`); an HTTP
  503 is a failed attempt like any other and is counted. The time runs from the kill to the moment the new
  router's registry holds all N, so it includes starting the new process. Event-loop delay is the new router's
  own (\`perf_hooks.monitorEventLoopDelay\`, 10 ms resolution) from just before it listens until all N are back.
- **Subtask overhead.** In the bench's process (\`bench/worker-rig.ts\`): a real router (memory chat adapter, push
  rate raised so three pushes per plan are never throttled) and two real hosts, "master" and "worker-node", with
  the fake OpenAI server answering every worker's first request with its final JSON, so each worker makes exactly
  one model request (checked). A plan of one subtask is started with \`host.workers.runner.start()\` (the master
  model's delegate turn is not timed), on the master itself or pinned to worker-node, and timed until the
  master's plan ledger has committed the subtask COMPLETED (the write is observed, not polled); the plan's report,
  its progress messages' delivery and the result's ack are waited for before the next one starts, untimed. The
  baseline is that same model request (same system prompt, same tool offered) made by \`runAgentLoop\` directly.
  Direct, local and (every other round) cross-host alternate: 20 warm-up rounds, then 200 timed. Every ledger
  write is a commit to state.db with \`synchronous=FULL\`; their in-run p50 is reported, since most of the
  difference is those commits (see the notes for which ones a subtask waits on).
- **Installed package.** \`pnpm package\` packs the tarball and \`npm install --global --prefix <temp>\` installs it
  as a user would (better-sqlite3 downloads a prebuilt addon, or compiles from source where it cannot: here it
  compiles). Everything else runs the installed \`<prefix>/bin/phonework\` with only PATH and a fresh HOME in its
  environment (no OPENAI_API_KEY: nothing is configured but what each figure names). *First prompt:* from spawning
  \`phonework standalone\` to the line "node … is online. Type /help", which it prints once the host is registered
  and the terminal chat reads — and only when stdin is a terminal, so it runs under util-linux \`script\` (a
  pseudo-terminal; its own start, a few ms, is counted) and is ended with Ctrl-D. One start on a new DATA_DIR
  (creating the node key and databases) is reported on its own; then 5 starts on that DATA_DIR: median (the
  target) and slowest. *Idle RSS:* VmRSS from /proc, 3 s after each program said it was ready: the router
  (\`CHAT=none\`, loopback, port 0, its address read from its "router listening" log line) once a host has
  registered with it; that host (\`ROUTER_URL=ws://127.0.0.1:<port>/ws/node\`, the shared secret); a standalone
  whose stdin is a pipe left open (ready = "standalone ready" in its log file). Each is started 3 times; the
  figure is the median. No GC is forced: at 3 s V8's heap is still sized for start-up, and the first start of
  each is read again at 20 s (in the note), by when V8 has usually given most of that back. MiB = 1,048,576
  bytes. *Size:* the installed \`<prefix>/lib/node_modules/phonework\` (the bundle and every runtime dependency),
  counted as \`du\` does: apparent bytes, and the blocks allocated on disk (many small files cost a block each);
  MB = 1,000,000 bytes.
- **Where the missed targets come from (as of the run above).** *Round trip:* at one user most of a forwarded
  round trip is the outbox's fsync, which the issue's own delivery guarantee (\`synchronous=FULL\` for the
  outbox) requires; with DATA_DIR on tmpfs the same path costs roughly half, and the rest is three frames
  (forward, answer, push_ack) with JSON + zod on each side against the echo's two. Throughput with many users
  is capped by the same commit (group commit helps: compare 1, 10 and 100 users) and by router and host
  sharing one core with the echo baseline. Reaching 3× / 0.4× would mean dropping the fsync before an answer
  leaves the host, i.e. weakening "a reply outlives its request"; we kept the guarantee. Since the chat
  layer stores every incoming message in router.db before the platform is told it arrived, and marks it
  handled once forwarded, a round trip also pays two router commits (about 60 µs each with WAL and
  \`synchronous=NORMAL\` on this disk) and the WAL checkpoints they bring: forwarded throughput at one user
  went from about 1,800 to about 1,100 msg/s and p99 from 1.7 to about 13 ms (a checkpoint). Batching the
  "handled" marks would let a crash re-forward a message to its node, so each is its own commit. *Storm:* the peak is one
  long turn of the event loop in which thousands of upgrade requests are read at once (one poll phase of
  libuv handles every socket that is ready; counted: 2,500–7,000 upgrades in the longest turn). The bursts
  come from the 10,000 simulated clients living in one process on the same two cores: it writes thousands
  of requests in one of its own turns. Each costs the router Node's HTTP parse plus the answer, about
  0.15–0.25 ms, even when refused. Refusals (503 past the handshake rate, 401, 404) are answered on the raw
  socket before the web framework sees them, which took the peak from 2.1–2.7 s to about 1.3–1.5 s. Two
  things tried and not kept: starting to read new connections a few per turn (the burst is data on
  connections already open, so it did not help), and refilling the handshake bucket once per turn (peak
  0.7–1.2 s, but so many more 503s that re-registration took 26–39 s). Re-registration time is dominated
  by the hosts' own backoff (exponential with full jitter), not by the router. *Storm, issue 35 second
  pass:* what a long turn holds was traced (\`BENCH_STORM_TRACE=1\` prints each gap of the new router's
  loop over 40 ms with the connections accepted, upgrades, registrations, GC and the process's CPU in it;
  \`BENCH_STORM_PROGRESS=1\` prints the count registered each second, \`BENCH_STORM_FAILURES=1\` the
  connection failures by cause, and \`BENCH_STORM_SIZES=10000\` picks the storm sizes, 1000,10000 by default):
  before, the longest turn at 3,000 hosts read 1,204 upgrades at once (1.05 s, 355 ms of CPU) — connections
  accepted in earlier turns whose requests all landed together. Now the server accepts connections paused
  (\`pauseOnConnect\`, \`front-door/connection-pacer.ts\`) and gives them to the HTTP server 16 per turn while
  fewer than 16 handed ones are short of their first request head; the rest wait unread (past 1,024
  waiting, or 3 s, a static 503 + Retry-After, no parser spent), a handed connection silent for 1 s
  gives way to one waiting, and one address holds at most 4 of the 16 places (trusted proxies excepted:
  without that share the front-door flood's silent connections took them all, and a paired host's
  reconnect during it took up to 12 s; with it \`pnpm bench front-door\` meets its 5 targets again). Upgrades still start 16 per turn, and register frames (the key check and the
  registration, which came 30–60 to a turn once the in-flight handshakes answered together) are now handled
  8 per turn. Same machine, same load (5–12 on 2 cores), 3,000 hosts, before → after: peak delay 1,063 and
  1,827 ms → 454 (heads/upgrades/registrations per turn 32/16/16) and 162 ms (16/8/8; upgrades went back to
  16, as 8 made a paired host wait longer for a stale place in the stranger-storm test); all back 30.9 and 35.0 s → 25.6 and 23.8 s; 503s
  2,521 and 2,285 → 2,533 and 1,542 (with the per-address share: 475 ms, 25.9 s, 2,238 503s, the 475 ms
  a 404 ms gap with 20 ms of CPU in it). With the work of a turn bounded by the shares, the handshakes in
  flight went from 64 to 256: at 64, 10,000 hosts (slow to answer the challenge, all in one process) came
  back in 82–88 s with 33,000–37,000 503s; at 256, in 27.0 s, peak 93.8 ms, p99 31.7 ms, chat max 200 ms,
  10,198 503s (load 3.5–4.8, 10,000 only); in \`pnpm bench storm\` right after (1,000 then 10,000, load
  2.8–4.5): 52.6 s, peak 204.5 ms, p99 50.7 ms, chat p50 19.7 / max 1,013 ms, 10,334 503s; 1,000 hosts
  29.1 s with no 503 (all 2,618 failures ECONNREFUSED during the 2.2 s start), peak 40.7 ms. One per-address
  cap (128) now sits below the in-flight bound, so one address cannot take every handshake place. Under that load most remaining long gaps are the process not being
  scheduled (a 150–400 ms gap with 0–25 ms of CPU in it) or a major GC with 10,000 sockets on the heap;
  the most CPU in one gap is now ~65 ms, against 355 ms before. *Small storms* come back in the time the
  hosts' backoff takes: every failed attempt at 1,000 hosts was ECONNREFUSED while the new router started
  (1–7 s here: tsx compiling the sources under load; the bench re-derived 10,000 keys at each start, now
  only at the first), against ~0–120 503s; by then a host's jittered backoff is 4–16 s. Tried and not
  kept: a 503 with Retry-After not growing the host's backoff (hosts came back every 1–10 s whatever the
  router's pace; under load only 280 of 10,000 were back after 90 s, 65,000 503s); a FIFO queue with no
  wait bound (clients gave up at their 10 s handshake timeout while waiting, so the router handed on dead
  connections). Not tried: a smaller listen backlog (it moves the queue into the kernel, whose overflow
  costs the client a 1 s SYN retry, and the accept loop is not where the time goes: 0–36 accepts per long
  gap); \`UV_TCP_SINGLE_ACCEPT\` (libuv still reads it at the first listen, but it only sleeps 1 ns between
  accepts inside the same loop, for other processes sharing the socket: one process accepts as much).
  *Key handshake CPU* is the Ed25519 verify: \`openssl speed ed25519\` gives 0.16 ms per verify here under
  load, and the JavaScript around it (payload, base64, the parsed-key lookup) ~1.5 µs, so 0.13 ms is at
  the floor of OpenSSL on this CPU. The figure is now measured before the router and the simulated hosts
  start (it was measured while the router derived 10,000 keys on the other core). The key check now runs
  last in admission, so a paired id presented with another key, a revoked or an unknown id costs no verify. *Idle RSS and start-up:* what is
  loaded is what is needed (the Feishu SDK, openai, pino-pretty and the YAML parser load only when used;
  the host likewise for the MCP SDK, openai and mime-types), and the pure JavaScript every start loads
  (fastify's tree, zod, pino, ws, commander…) is bundled into the CLI by \`pnpm build\`: with those ~340
  CommonJS files left as installed packages (resolved, read and compiled one by one at each start) the
  router idled at 82–85 MiB and the first prompt took ~0.4 s; bundled, 77 MiB and 0.3 s. About 40 MiB
  is Node itself (its binary's pages, builtins such as http and crypto); most of the rest at 3 s is V8's
  heap still sized for start-up, which it gives back once it collects (see the 20 s reading). The host
  also reads ICU's time-zone data (about 6 MiB) to check TIME_ZONE at start. *Size:* the bundle is ~3.5 MB;
  most of the install is the packages kept as packages (better-sqlite3 with its build leftovers when it
  compiles, the Feishu, OpenAI and MCP SDKs). pino-roll (and its 28 MB of date-fns) was replaced by a
  small rotating file of our own (see README).
- **One address flooding the router (front door).** A real router with its defaults and no shared secret
  (hosts prove keys; \`MAX_CONNECTIONS_PER_ADDRESS\` 128, \`HANDSHAKE_TIMEOUT_S\` 2 s, \`HTTP_HEADERS_TIMEOUT_S\`
  10 s), a Telegram adapter in webhook mode on the fake Bot API, and a real host paired with a join code (its own
  Ed25519 key, the host app's backoff) in the bench's process, all on 127.0.0.1. The attacker
  (\`bench/flood-client.ts\`, a process of its own) binds 127.0.0.2 and tries to hold 1,000 connections at once —
  a third idle, a third WebSocket upgrades naming the real node and then silent, a third half-sent requests —
  opening a new one 250 ms after each the router drops. The webhook figure is a signed \`POST /webhook/telegram\`
  (one update at a time, after 50 of warm-up) until the router's 200; the reconnect figure runs from the router
  closing the host's link to the host's next \`register_ok\` (its backoff's jitter, up to 500 ms, included).
  Both are measured before the flood and once the attacker holds the cap. The attacker's count is the router's
  own (sampled every 20 ms); lifetimes are the attacker's, from its connect (or its 101) to the close.
- **Failure detection.** In the bench's process, with \`HEARTBEAT_INTERVAL_S=1\` and \`HEARTBEAT_TIMEOUT_S=1\`.
  A silent host answers one or two pings and then none; the figure is the time from its last pong to the
  registry's offline event (by design about interval + timeout). A vanishing host receives a \`forward\`,
  then its TCP connection is destroyed with no close frame; the figure is the time until the user's chat gets
  the NODE_OFFLINE reply ("went offline before answering").
`;

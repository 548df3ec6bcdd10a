// Package scheduler is yorozu's job engine: a River client (riverpgxv5) on
// the app's Postgres pool that delivers reminders and runs named jobs, some of
// them on cron schedules.
//
// # Where things are
//
// The package holds two things, told apart by file name:
//
//   - The engine, in files without a prefix: the River client and its
//     start and stop (scheduler.go, client.go), named and periodic jobs
//     (jobs.go), settings a running job takes from the admin page
//     (live.go), the planner that inserts the jobs of repeating reminders
//     coming near (plan.go), users' time zones (timezone.go), the
//     registration of the housekeeping jobs (housekeeping.go) and River's
//     job UI (jobs_ui.go).
//   - What each job does and posts, in job_*.go: reminders
//     (job_reminder*.go: the service commands and tools call, delivery,
//     repeating schedules, the buttons on a delivered reminder), the
//     weather post (job_weather.go), tips (job_tips.go), JMA's disaster
//     information (job_disaster.go), and the housekeeping jobs
//     (job_purge.go, job_retention.go, job_chanlog_retention.go). Where a
//     post goes — a webhook, whose token no error quotes, or a bot message
//     — is job_webhook.go; the space a post belongs to, job_space.go.
//
// The jobs stay in this package rather than in packages of their own
// because they run on the engine's internals (a claimed slot of a
// periodic job, live settings, the River client inside a transaction);
// what they read and write lives in the packages below (db, weather,
// disaster, memory, llm).
//
// # Timing
//
// River moves a scheduled job to "available" when its leader's scheduler
// passes (every 5 s, looking 5 s ahead), and a producer fetches an available
// job once its scheduled_at has come and something tells it to look. The
// scheduler tells it: it keeps the due time of every reminder job (those
// inserted here, those River retries or snoozes here, and, read from River's
// table every minute, those other processes made) and at each sends River's
// own insert notification for the reminders queue (wake.go), so a reminder
// goes out within milliseconds of its time. A retry or snooze shorter than
// the scheduler's pass leaves its job available with a later scheduled_at,
// which no pass notifies: River's events tell the scheduler of it, and it
// wakes the queue then too. Each queue also polls every
// Options.PollInterval (10 s by default) as a fallback, for a wake-up lost
// while River's listening connection was down or a job made available
// without a notification (River UI's retry). A reminder due
// sooner than the scheduler's look-ahead is inserted as available straight
// away, which is what the scheduler would have done on its next pass.
//
// # Reminders
//
// Reminders.Create writes the reminders row and its River job in one
// transaction. The delivery worker never holds a transaction across a
// Discord or model call. It claims the occurrence in one statement (the row
// checked — nothing to do when it was cancelled, paused, delivered, given
// up on or moved on — and leased to this attempt: claim_token,
// claimed_until), writes a scheduled post's text,
// posts with the requester's mention as the only allowed mention and an
// enforced nonce per occurrence, and records the outcome in a second short
// transaction. That one honours what came meanwhile: a cancelled reminder
// only gets the delivery recorded, a paused one moves on without a job, and
// an occurrence skipped (its claim gone) is left as the skip made it. A
// claim whose lease ran out (a process that died) is taken over; since its
// attempt may have posted, the next one looks for its message in the
// channel and posts, if at all, with the same nonce. Permanent Discord
// errors end the reminder with the reason; transient ones are retried with
// backoff up to MaxDeliveryAttempts, counted in the row.
//
// A repeating reminder (Reminders.Repeat) is one row whose due_at is its next
// occurrence; each occurrence is one River job, unique by the reminder and
// the occurrence. Handling one records the delivery and moves the row on in
// one statement. The next occurrence's job is inserted then only if it is
// due within planAhead; otherwise the planner (every minute, and at Start)
// inserts the jobs of the occurrences coming near, many in one statement.
//
// # Named and periodic jobs
//
// AddJob registers a named job, AddPeriodic also schedules it with a cron
// expression in Options.Location. A periodic job is unique by its name and
// slot time, so however many processes run, each slot runs once. RunNow runs
// a named job in the calling goroutine (`yorozu jobs run NAME`).
package scheduler

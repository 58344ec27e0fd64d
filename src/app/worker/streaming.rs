//! The worker's side of a dictation streamed while the key is held: each pass over the audio
//! so far ([`WorkerThread::serve_pass`], a stride's skipped while too little is uncommitted, a
//! long one at a pause settled first),
//! whether queued audio or the speaker going on made a pass useless ([`superseded`],
//! [`newer_audio_with_more_speech`], [`pause_broken`]), and key-up of a
//! streamed dictation ([`WorkerThread::finish_stream`]: the committed text and the tail). What
//! is committed is the [`Stream`]'s business; this runs Whisper for it.

use super::*;

impl WorkerThread {
    /// A snapshot of the audio so far (`stride`: sent after a stride of speech, not at a
    /// pause): skipped when newer audio queued behind it makes it useless, otherwise the last
    /// pass's held pause is committed and a pass runs over what is left, unless a stride's
    /// is too short yet. Newer audio with speech after it (key-up's, or a pause's snapshot)
    /// makes a pass that cannot commit by a pause useless: then it stops, and that audio is
    /// got to sooner. A pass that ends in a pause is of use only if the pause holds, and,
    /// unless its words are compared with the next pass's, stops when it does not.
    pub(super) fn serve_pass(
        &mut self,
        job: Job,
        stride: bool,
        queue: &mut VecDeque<WorkerCommand>,
        commands: &Receiver<WorkerCommand>,
    ) {
        let Some(head) = Head::of(&job) else {
            return;
        };
        if self.crashed.contains(&job.id) {
            return; // an earlier part of this recording panicked
        }
        if superseded(&head, queue) {
            tracing::debug!(
                id = job.id,
                "early transcription skipped: newer audio queued"
            );
            return;
        }
        // First, so that a stride just after a held pause is measured from it.
        self.commit_held_pause(&job);
        if stride && self.stride_too_soon(&job) {
            // The audio since the last commit is short: the next pause commits it. What is
            // shown stays, but for the held pause just committed.
            let (committed, tentative) = shown(self.stream.as_ref(), job.id);
            return self.progress(job.id, head.len, Duration::ZERO, committed, tentative);
        }
        let stop = Arc::clone(&self.stop);
        let (at_pause, only_for_its_pause) = match &job.audio {
            JobAudio::Recorded(samples) => self.pass_ends_in_pause(job.id, samples),
            JobAudio::Saved(_) => (false, false),
        };
        let mut keep_going = || {
            queue.extend(commands.try_iter());
            let useless = if at_pause {
                only_for_its_pause && pause_broken(&head, queue)
            } else {
                newer_audio_with_more_speech(&head, queue)
            };
            !useless && !stop.load(Ordering::Relaxed)
        };
        self.transcribe_early(job, &mut keep_going);
    }

    /// Whether a stride's snapshot `job` has less audio since the last commit than
    /// [`stream::STRIDE_FROM`].
    fn stride_too_soon(&self, job: &Job) -> bool {
        let JobAudio::Recorded(samples) = &job.audio else {
            return false;
        };
        if !commits_without_pauses() {
            return true; // a stride's pass could commit nothing
        }
        let from = self
            .stream
            .as_ref()
            .filter(|s| s.id == job.id)
            .map_or(0, |s| s.committed_to);
        samples.len().saturating_sub(from) < stream::STRIDE_FROM
    }

    /// Whether the next pass over recording `id`'s audio so far (`samples`) ends in a pause
    /// (asked after [`Self::commit_held_pause`]);
    /// and whether it is of use only if that pause holds: it asks for no word times, so
    /// nothing compares its words ([`Stream::pass_needs_word_times`]), and only a held pause
    /// commits it.
    fn pass_ends_in_pause(&self, id: u64, samples: &[f32]) -> (bool, bool) {
        // There is one: [`Self::commit_held_pause`] came first.
        let Some(stream) = self.stream.as_ref().filter(|s| s.id == id) else {
            return (false, false);
        };
        let from = stream.committed_to;
        let to = samples.len().min(from + stream::MAX_PASS);
        let peak = loudest_frame(samples, SAMPLE_RATE);
        let at_pause = from < to
            && to == samples.len()
            && pause::ends_in_pause(&samples[from..to], from..to, stream.hearing(peak));
        let only_for_its_pause = at_pause
            && stream.pass_range(samples.len()).is_some_and(|range| {
                !stream.pass_needs_word_times(&range, &samples[range.clone()], peak)
            });
        (at_pause, only_for_its_pause)
    }

    /// Before a pass over `job`'s audio so far: the stream of its recording (a new one for a
    /// new recording), with the last pass's text committed when the pause it ended in has
    /// held in this audio.
    fn commit_held_pause(&mut self, job: &Job) {
        let JobAudio::Recorded(samples) = &job.audio else {
            return;
        };
        let stream = match self.stream.as_mut().filter(|s| s.id == job.id) {
            Some(stream) => stream,
            None => self.stream.insert(Stream::new(job.id)),
        };
        stream.hear(samples);
        if let Some(cut_s) = stream.commit_held_pause(samples) {
            log_commit(stream, Rule::Pause, cut_s);
        }
    }

    /// The recorder heard the pause that ended recording `id`'s last pause snapshot hold, in
    /// `samples` (its audio so far): that pass's text is committed and shown as such now. What
    /// is shown is reported either way (the pass may have given nothing to commit).
    pub(super) fn commit_pause_that_held(&mut self, id: u64, samples: &SharedAudio) {
        if let Some(stream) = self.stream.as_mut().filter(|s| s.id == id) {
            stream.hear(samples);
            if let Some(cut_s) = stream.commit_held_pause(samples) {
                log_commit(stream, Rule::Pause, cut_s);
            }
        }
        let (committed, tentative) = shown(self.stream.as_ref(), id);
        self.progress(id, samples.len(), Duration::ZERO, committed, tentative);
    }

    /// A pass over the audio so far of a recording (see the module doc), unless `keep_going`
    /// stops it first; [`Self::commit_held_pause`] has been called for it. It settles first
    /// (the last pass's words up to its last quiet word gap a second before its end) when that
    /// makes it start [`SETTLING_SAVES`] later ([`Self::settled_pass`]).
    fn transcribe_early(&mut self, job: Job, keep_going: &mut dyn FnMut() -> bool) {
        let JobAudio::Recorded(samples) = &job.audio else {
            return;
        };
        let Some(stream) = self.stream.as_mut().filter(|s| s.id == job.id) else {
            return;
        };
        let Some(range) = stream.pass_range(samples.len()) else {
            return;
        };
        if range.end < samples.len() && !commit::RULES_IN_USE.contains(&Rule::Forced) {
            // More than one window since the last commit: this pass cannot end in a pause,
            // so it could commit nothing; key-up transcribes it.
            let (committed, tentative) = (stream.committed_text(), stream.tentative_text());
            return self.progress(job.id, range.end, Duration::ZERO, committed, tentative);
        }
        let audio = &samples[range.clone()];
        if loudest_frame(audio, SAMPLE_RATE) <= GateConfig::default().frame_rms
            || stream.heard_no_speech_in(range.clone())
        {
            stream.skip_silence(&range);
            let committed = stream.committed_text();
            return self.progress(job.id, range.end, Duration::ZERO, committed, String::new());
        }
        let peak = loudest_frame(&samples[..range.end], SAMPLE_RATE);
        let settled = stream
            .settled_by_last_pass(samples, &job.wording)
            .filter(|s| s.pass_from() >= range.start + SETTLING_SAVES);
        if let Some(settled) = settled {
            match self.settled_pass(&job, settled, samples, peak, keep_going) {
                Settled::Taken | Settled::Stopped => return,
                Settled::Disagreed => {}
            }
        }
        let Some(stream) = self.stream.as_mut().filter(|s| s.id == job.id) else {
            return;
        };
        let mut params = pass_params(&job.params, stream);
        // The word rule compares passes word by word (key-up's pass commits all, so needs none).
        params.word_times |= stream.pass_needs_word_times(&range, audio, peak);
        let journal = job.journal.as_deref();
        let started = Instant::now();
        let Some((result, engine)) = self.whisper(audio, &params, Part::Head, journal, keep_going)
        else {
            return self.pass_stopped(job.id, range.end, started.elapsed());
        };
        let transcript = match result {
            Ok(transcript) => transcript,
            Err(message) => return self.pass_failed(job.id, range.end, engine, &message),
        };
        let Some(stream) = self.stream.as_mut().filter(|s| s.id == job.id) else {
            return;
        };
        let progress = stream.take_pass((range.clone(), audio, peak), &transcript, &job.wording);
        self.pass_taken(&job, range, &transcript, engine, progress);
    }

    /// A pass (at a pause, or a stride's) over the recording after `settled` (the stream with
    /// its last pass's words committed, [`Stream::settled_by_last_pass`]), with word times:
    /// taken when it agrees with the last pass after the cut ([`Stream::take_settled_pass`]).
    fn settled_pass(
        &mut self,
        job: &Job,
        settled: Stream,
        samples: &[f32],
        peak: f32,
        keep_going: &mut dyn FnMut() -> bool,
    ) -> Settled {
        let Some(range) = settled.pass_range(samples.len()) else {
            return Settled::Disagreed;
        };
        let audio = &samples[range.clone()];
        let mut params = pass_params(&job.params, &settled);
        params.word_times = true;
        let journal = job.journal.as_deref();
        let started = Instant::now();
        let Some((result, engine)) = self.whisper(audio, &params, Part::Head, journal, keep_going)
        else {
            self.pass_stopped(job.id, range.end, started.elapsed());
            return Settled::Stopped;
        };
        let Ok(transcript) = result else {
            return Settled::Disagreed; // the pass from the last commit will say why
        };
        let Some(stream) = self.stream.as_mut().filter(|s| s.id == job.id) else {
            return Settled::Stopped;
        };
        let settled_from = settled.pass_from();
        let triple = (range.clone(), audio, peak);
        let Some((cut_s, progress)) =
            stream.take_settled_pass(settled, triple, &transcript, &job.wording)
        else {
            tracing::info!(
                id = job.id,
                from_s = settled_from as f32 / SAMPLE_RATE as f32,
                engine_ms = engine.as_millis() as u64,
                "the settled pass disagreed with the last pass after its cut; \
                 transcribed again from the last commit"
            );
            return Settled::Disagreed;
        };
        log_commit(stream, Rule::Words, cut_s);
        tracing::info!(
            id = job.id,
            cut_s,
            from_s = settled_from as f32 / SAMPLE_RATE as f32,
            "settled: the last pass's words committed"
        );
        self.pass_taken(job, range, &transcript, engine, progress);
        Settled::Taken
    }

    /// A pass over recording `id` up to sample `end` stopped after `spent`: newer audio came,
    /// or the pause did not hold.
    fn pass_stopped(&self, id: u64, end: usize, spent: Duration) {
        tracing::debug!(
            id,
            engine_ms = spent.as_millis() as u64,
            "early transcription stopped: newer audio came, or the pause did not hold"
        );
        let (committed, tentative) = shown(self.stream.as_ref(), id);
        (self.emit)(WorkerEvent::Progress {
            id,
            seconds: end as f32 / SAMPLE_RATE as f32,
            engine: spent,
            stopped: true,
            committed,
            tentative,
        });
    }

    /// A pass over recording `id` up to sample `end` failed with `message`.
    fn pass_failed(&self, id: u64, end: usize, engine: Duration, message: &str) {
        tracing::warn!(id, message, "a pass failed; key-up transcribes again");
        let committed = self.stream.as_ref().map(Stream::committed_text);
        self.progress(
            id,
            end,
            engine,
            committed.unwrap_or_default(),
            String::new(),
        );
    }

    /// Logs and reports a pass over `job`'s recording (its `range`, in samples) that the
    /// stream took, having made `progress`.
    fn pass_taken(
        &self,
        job: &Job,
        range: std::ops::Range<usize>,
        transcript: &Transcript,
        engine: Duration,
        progress: stream::Progress,
    ) {
        if let Some(stream) = self.stream.as_ref().filter(|s| s.id == job.id) {
            if let Some((rule, cut_s)) = progress.commit {
                log_commit(stream, rule, cut_s);
            }
        }
        tracing::info!(
            id = job.id,
            from_s = range.start as f32 / SAMPLE_RATE as f32,
            seconds = range.len() as f32 / SAMPLE_RATE as f32,
            heard = ?crate::logging::dictated(&transcript.text),
            committed_chars = progress.committed.chars().count(),
            tentative_chars = progress.tentative.chars().count(),
            engine_ms = engine.as_millis() as u64,
            "head transcribed"
        );
        self.progress(
            job.id,
            range.end,
            engine,
            progress.committed,
            progress.tentative,
        );
    }

    /// Sends [`WorkerEvent::Progress`] for a pass that covered recording `id` up to sample `end`.
    pub(super) fn progress(
        &self,
        id: u64,
        end: usize,
        engine: Duration,
        committed: String,
        tentative: String,
    ) {
        (self.emit)(WorkerEvent::Progress {
            id,
            seconds: end as f32 / SAMPLE_RATE as f32,
            engine,
            stopped: false,
            committed,
            tentative,
        });
    }

    /// Key-up of a streamed dictation: its committed text, and the audio after the last
    /// commit (the last pass's text when it covered it all, else transcribed now). Without a
    /// pause to commit at, the last pass's words up to its last quiet word gap are committed
    /// first ([`Stream::settled_by_last_pass`]) and only the audio after them is transcribed,
    /// unless what key-up's pass heard there disagrees with the last pass
    /// ([`Stream::rest_after_settling`]): then the audio since the last commit is, as before.
    pub(super) fn finish_stream(
        &mut self,
        mut stream: Stream,
        samples: &[f32],
        (params, wording): (&TranscribeParams, &Wording),
        recording: Option<&Path>,
    ) -> Option<Recognised> {
        let level = Level::measure(samples, SAMPLE_RATE, &GateConfig::default());
        let mut engine = Duration::ZERO;
        let mut settled_tail = None;
        // Noise, music or other voices after the last commit, and no speech: nothing more was
        // said, and a pass over it would only make Whisper write the committed words again.
        let nothing_after =
            stream.has_committed() && stream.heard_no_speech_in(stream.committed_to..samples.len());
        if nothing_after {
            tracing::info!(
                id = stream.id,
                "no speech after the last commit: nothing more to transcribe"
            );
            settled_tail = Some((None, Heard::default()));
        } else if stream.tentative_stands_for(samples).is_none() {
            if let Some(settled) = stream.settled_by_last_pass(samples, wording) {
                let (tail, spent) =
                    self.settled_tail(&settled, samples, (params, wording), recording)?;
                engine += spent;
                match tail {
                    Some(tail) => {
                        // A commit like the passes' (the desktop test checks the words around
                        // every one).
                        let cut_s = settled.committed_to as f32 / SAMPLE_RATE as f32;
                        log_commit(&settled, Rule::Words, cut_s);
                        tracing::info!(
                            id = settled.id,
                            cut_s,
                            from_s = settled.pass_from() as f32 / SAMPLE_RATE as f32,
                            "settled at key-up: the last pass's words committed"
                        );
                        stream = settled;
                        settled_tail = Some(tail);
                    }
                    None => tracing::info!(
                        id = settled.id,
                        "key-up's pass disagreed with the last pass after its cut; \
                         transcribed again from the last commit"
                    ),
                }
            }
        }
        let (tail_text, tail_heard) = match (settled_tail, stream.tentative_stands_for(samples)) {
            (Some(tail), _) => tail,
            (None, Some(text)) => (Some(text), stream.tentative_heard()),
            (None, None) => {
                let tail_recognised =
                    self.transcribe_tail(&stream, samples, (params, wording), recording)?;
                engine += tail_recognised.engine;
                match tail_recognised.outcome {
                    Outcome::Text(text) => {
                        let heard = Heard {
                            raw: stream.text_without_context(&tail_recognised.heard.raw),
                            ..tail_recognised.heard
                        };
                        (Some(stream.text_without_context(&text)), heard)
                    }
                    Outcome::Empty(_) if stream.has_committed() => (None, Heard::default()),
                    outcome => {
                        return Some(Recognised {
                            outcome,
                            engine,
                            level: Some(level),
                            heard: tail_recognised.heard,
                        })
                    }
                }
            }
        };
        tracing::info!(
            id = stream.id,
            passes = stream.passes,
            commits = stream.commits,
            tail_s = samples.len().saturating_sub(stream.committed_to) as f32 / SAMPLE_RATE as f32,
            tail = ?crate::logging::dictated(tail_text.as_deref().unwrap_or_default()),
            "stream finished"
        );
        Some(Recognised {
            outcome: Outcome::Text(stream.with_tail(tail_text.as_deref(), samples.len())),
            engine,
            level: Some(level),
            heard: stream.heard_with_tail(tail_heard),
        })
    }

    /// Key-up's pass over `stream`'s audio from [`Stream::pass_from`] on.
    fn transcribe_tail(
        &mut self,
        stream: &Stream,
        samples: &[f32],
        (params, wording): (&TranscribeParams, &Wording),
        recording: Option<&Path>,
    ) -> Option<Recognised> {
        let tail = &samples[stream.pass_from().min(samples.len())..];
        let params = pass_params(params, stream);
        self.recognise(tail, (&params, wording), Part::Tail, recording)
    }

    /// Key-up's pass over a `settled` stream's audio from [`Stream::pass_from`] on, with word
    /// times to find the committed words it heard again by: its text without them and what
    /// Whisper wrote, when it agrees with the last pass after the cut
    /// ([`Stream::rest_after_settling`]), else `None`; and the engine's time. `None` when the app
    /// quit meanwhile.
    fn settled_tail(
        &mut self,
        settled: &Stream,
        samples: &[f32],
        (params, wording): (&TranscribeParams, &Wording),
        recording: Option<&Path>,
    ) -> Option<(Option<Tail>, Duration)> {
        let tail = &samples[settled.pass_from().min(samples.len())..];
        let mut params = pass_params(params, settled);
        params.word_times = true;
        let stop = Arc::clone(&self.stop);
        let keep_going = &mut || !stop.load(Ordering::Relaxed);
        let (result, engine) = self.whisper(tail, &params, Part::Tail, recording, keep_going)?;
        let Some(rest) = result
            .ok()
            .and_then(|t| settled.rest_after_settling(&t, tail))
        else {
            return Some((None, engine));
        };
        let rest = settled.without_said_again(rest, settled.pass_from(), tail.len());
        let cut = settled.committed_to.saturating_sub(settled.pass_from());
        let level = Level::measure(
            &tail[cut.min(tail.len())..],
            SAMPLE_RATE,
            &GateConfig::default(),
        );
        let text = wording.words(&rest, &level).ok();
        Some((Some((text, Heard::of(&rest))), engine))
    }
}

/// Key-up's text of the audio after the last commit (none when the wording gave none), and
/// what Whisper wrote there.
type Tail = (Option<String>, Heard);

/// A pass settles first ([`Stream::settled_by_last_pass`]: the last pass's words up to its
/// last quiet word gap a second or more before its end are committed) when that makes it start
/// at least this much later (samples). Without settling, the pass that commits by agreement
/// hears everything since the last commit again with the ~3 s after it.
///
/// Settled at any quiet word gap, not only at a sentence end: at sentence ends only, a stride's
/// pass in speech without pauses heard the whole unfinished sentence again every 2 s (6–11 s
/// passes; the busy-worker harness, `STREAM_CLIP=target/long-clips/long_60s_nopause.wav
/// STREAM_PHASES=0 cargo test --release --test app_pipeline_streaming -- --ignored
/// --nocapture`: 151 s of audio heard for 45 s, all passes 3.2x the whole file's engine time;
/// 110 s clip 328 s, 3.8x). At any word gap: 105 s, 2.4x; 221 s, 3.0x; the same WER (6.7 %,
/// the whole file's 6.7 %; 7.9 % against 7.6 %, whole 9.6 %). A cut mid-sentence no longer
/// makes Whisper invent words as it did when the next pass started at the cut (`commit.rs`,
/// [`commit::RULES_IN_USE`]): the next pass hears ~2 s of committed speech again
/// ([`commit::words::CONTEXT`]). Agreement between passes still commits at sentence ends
/// only.
/// The settled pass checks the last ~2 s of the committed words (it hears them again and must
/// write them) and its first words after the cut ([`Stream::rest_after_settling`]). Sentence
/// ends only, this was 3 s: a settle then saves more than a word gap's does.
///
/// What it costs: after a settle only 3–5 s stay uncommitted, so strides wait for
/// [`stream::STRIDE_FROM`] again and key-up may hear more (the non-busy harness's 35 s clip,
/// `cargo test --release --test app_pipeline_streaming -- a_long --nocapture`: key-up's engine
/// time 0.31–0.34 → 0.38–0.39 s; in the app key-up → pasted stayed at 155–196 ms). Running
/// every stride after a commit mid-speech brought key-up to 0.25 s and cost more than settling
/// saved. And a settled pass that disagrees is followed by the pass from the last commit: once,
/// at the last pause before key-up, key-up waited 0.42 s for the two (BENCHMARKS.md, "Every
/// pass settles at a quiet word gap").
const SETTLING_SAVES: usize = 3 * SAMPLE_RATE as usize / 2;

/// What became of a pass at a pause after settling.
enum Settled {
    /// It agreed with the last pass: the stream took it.
    Taken,
    /// Stopped (newer audio, the pause broken, the app quitting), or the stream is gone.
    Stopped,
    /// It did not agree, or failed: the pass from the last commit runs instead.
    Disagreed,
}

/// The audio of an early job: which recording, how much of it, how loud.
#[derive(Debug, Clone, Copy)]
struct Head {
    id: u64,
    /// Samples at 16 kHz.
    len: usize,
    /// Its loudest frame, against which the rest of the recording is judged quiet or not.
    peak: f32,
}

impl Head {
    pub(super) fn of(job: &Job) -> Option<Head> {
        match &job.audio {
            JobAudio::Recorded(samples) => Some(Head {
                id: job.id,
                len: samples.len(),
                peak: loudest_frame(samples, SAMPLE_RATE),
            }),
            JobAudio::Saved(_) => None,
        }
    }

    /// Whether the head's text stands for all of `recording` (the same recording, longer):
    /// everything after the head is quiet.
    pub(super) fn stands_for(&self, recording: &SharedAudio) -> bool {
        pause::tail_is_quiet(
            recording,
            self.len,
            pause::Hearing::of(recording, self.peak),
            SAMPLE_RATE,
        )
    }
}

/// Whether newer audio of the same recording waiting behind an early job makes the `head`'s
/// text useless: a later pause or the audio up to key-up (which will be transcribed instead), or
/// the whole recording with speech after the head (which will be transcribed whole). A whole
/// recording that is quiet after the head will use the head's text: not superseded.
fn superseded(head: &Head, queue: &VecDeque<WorkerCommand>) -> bool {
    queue.iter().any(|command| match command {
        WorkerCommand::TranscribeEarly(later) | WorkerCommand::TranscribeStride(later) => {
            later.id == head.id
        }
        WorkerCommand::Transcribe(later) if later.id == head.id => match &later.audio {
            JobAudio::Recorded(recording) => !head.stands_for(recording),
            JobAudio::Saved(_) => true,
        },
        WorkerCommand::Transcribe(_)
        | WorkerCommand::Load(_)
        | WorkerCommand::SpeechAfterPause { .. }
        | WorkerCommand::PauseHeld { .. }
        | WorkerCommand::ForgetRecentLanguage
        | WorkerCommand::Unload => false,
    })
}

/// Whether the speaker went on too soon after the pause that ended the `head`'s audio for
/// that pause to hold ([`commit::pause_held`]: [`commit::PAUSE_HELD`] of quiet after it), as
/// the recorder heard it ([`WorkerCommand::SpeechAfterPause`] waiting in the queue).
fn pause_broken(head: &Head, queue: &VecDeque<WorkerCommand>) -> bool {
    let held = (commit::PAUSE_HELD * SAMPLE_RATE as f32) as usize;
    queue.iter().any(|command| {
        matches!(command, WorkerCommand::SpeechAfterPause { id, pause_end, heard_at }
            if *id == head.id && *pause_end == head.len && *heard_at < head.len + held)
    })
}

/// What the overlay shows of recording `id`: its committed text and the tentative rest.
fn shown(stream: Option<&Stream>, id: u64) -> (String, String) {
    stream
        .filter(|s| s.id == id)
        .map(|s| (s.committed_text(), s.tentative_text()))
        .unwrap_or_default()
}

/// Logs a commit of `stream` (no text: its length in words, where it cut, by which rule).
pub(super) fn log_commit(stream: &Stream, rule: Rule, cut_s: f32) {
    tracing::info!(
        id = stream.id,
        rule = rule.name(),
        cut_s,
        words_total = stream.committed_text().split_whitespace().count(),
        passes = stream.passes,
        "stream committed"
    );
}

/// Whether newer audio of the `head`'s recording waits behind it with speech after the head:
/// key-up's whole recording (the head's text cannot stand for it, and the rest is transcribed
/// at once), or a pause's snapshot, the audio up to key-up among them (it hears all the head
/// does and more, and ends in quiet, so it can be committed whole; a pass over the head that
/// does not end in a pause would only be thrown away or agreed with). A stride's snapshot does
/// not count: it ends in speech too.
fn newer_audio_with_more_speech(head: &Head, queue: &VecDeque<WorkerCommand>) -> bool {
    queue.iter().any(|command| match command {
        WorkerCommand::Transcribe(later) | WorkerCommand::TranscribeEarly(later)
            if later.id == head.id =>
        {
            match &later.audio {
                JobAudio::Recorded(recording) => !head.stands_for(recording),
                JobAudio::Saved(_) => true,
            }
        }
        _ => false,
    })
}

/// The parameters of a pass over `stream`'s uncommitted audio: the dictation's, with the
/// language it was committed in, the committed text's end as Whisper's previous text, and the
/// last pass's tokens as its draft. Word times, where a pass asks for them, come without
/// probabilities: the commit rules read the times only, and the probabilities were a third of
/// the word-time pass (the busy-worker harness on the 60 s clip without pauses: word times
/// 404 → 274 ms of a dictation's 3.9 s of passes).
pub(super) fn pass_params(params: &TranscribeParams, stream: &Stream) -> TranscribeParams {
    let mut params = params.clone();
    params.word_probabilities = false;
    if let Some(language) = &stream.language {
        params.language = Some(language.clone());
    }
    params.initial_prompt = stream.prompt(params.initial_prompt.as_deref());
    (params.draft, params.draft_elsewhere) = stream.draft_from(stream.pass_from());
    params
}

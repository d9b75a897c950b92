package workload

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/tpsbench/tpsbench/content"
)

// AudioRate is the sample rate of synthetic audio: 16 kHz, what speech
// models (Whisper, Qwen2-Audio) resample their input to.
const AudioRate = 16000

// maxAudioSeconds bounds a synthetic signal: Whisper's window is 30 s and
// the longest clips servers take are minutes; an hour is 115 MB of WAV.
const maxAudioSeconds = 3600

// audioPool is how many distinct signals of a length are made: fewer than
// images, as a clip of 30 s is a megabyte.
const audioPool = 8

// SyntheticAudio makes the audio requests of one length carry: pool
// distinct speech-like signals (drawn from seed) of seconds each, as
// 16-bit mono WAV at AudioRate.
func SyntheticAudio(seconds float64, seed uint64) ([]content.Media, error) {
	if !(seconds > 0 && seconds <= maxAudioSeconds) {
		return nil, fmt.Errorf("audio of %g s: want more than 0 and at most %d", seconds, maxAudioSeconds)
	}
	out := make([]content.Media, audioPool)
	for i := range out {
		samples := speechLike(int(math.Round(seconds*AudioRate)), rand.New(rand.NewPCG(seed, uint64(i)|1<<59)))
		out[i] = content.Media{MIME: "audio/wav", Data: EncodeWAV(samples, AudioRate), Seconds: float64(len(samples)) / AudioRate}
	}
	return out, nil
}

// harmonics are the pitch's multiples a voiced syllable holds.
const harmonics = 24

// speechLike is n samples of voiced syllables (a pitch with harmonics
// under two formants, a smooth envelope) and pauses between words, over
// quiet noise: a signal a speech model's voice detection and encoder
// treat as speech, not as silence or a tone.
func speechLike(n int, r *rand.Rand) []int16 {
	out := make([]int16, n)
	word := 0 // syllables left in the word
	for i := 0; i < n; {
		syllable := int((0.12 + 0.18*r.Float64()) * AudioRate)
		pitch := 90 + 160*r.Float64()
		f1, f2 := 300+600*r.Float64(), 900+1600*r.Float64()
		// each harmonic's gain under the formants, at the syllable's mean
		// pitch (the tone rises by a tenth: the gains barely move)
		var gain [harmonics]float64
		for k := range gain {
			h := pitch * 1.05 * float64(k+1)
			gain[k] = (formant(h, f1, 120) + 0.6*formant(h, f2, 180)) / float64(k+1)
		}
		phase := 0.0
		for j := 0; j < syllable && i+j < n; j++ {
			env := math.Sin(math.Pi * float64(j) / float64(syllable))
			f0 := pitch * (1 + 0.1*float64(j)/float64(syllable)) // a rising tone
			phase += 2 * math.Pi * f0 / AudioRate
			// sin(k*phase) for every k by rotating a unit vector: one
			// sincos a sample, not one a harmonic
			s1, c1 := math.Sincos(phase)
			sk, ck, v := s1, c1, 0.0
			for k := range gain {
				v += gain[k] * sk
				sk, ck = sk*c1+ck*s1, ck*c1-sk*s1
			}
			out[i+j] = pcm16(15000 * env * v) // about -20 dBFS voiced, as speech is recorded
		}
		i += syllable
		if word--; word <= 0 { // a pause between words of 2 to 4 syllables
			i += int((0.1 + 0.3*r.Float64()) * AudioRate)
			word = 2 + r.IntN(3)
		}
	}
	for i := range out {
		out[i] = pcm16(float64(out[i]) + r.NormFloat64()*30)
	}
	return out
}

// pcm16 is v as a 16-bit sample, clipped as a recording clips.
func pcm16(v float64) int16 { return int16(max(-32768, min(32767, math.Round(v)))) }

// formant is a resonance's gain at frequency f: a bell around center.
func formant(f, center, width float64) float64 {
	d := (f - center) / width
	return math.Exp(-d * d / 2)
}

// EncodeWAV is samples as a 16-bit mono PCM WAV file.
func EncodeWAV(samples []int16, rate int) []byte {
	data := 2 * len(samples)
	b := make([]byte, 44, 44+data)
	copy(b[0:], "RIFF")
	binary.LittleEndian.PutUint32(b[4:], uint32(36+data))
	copy(b[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(b[16:], 16)
	binary.LittleEndian.PutUint16(b[20:], 1) // PCM
	binary.LittleEndian.PutUint16(b[22:], 1) // mono
	binary.LittleEndian.PutUint32(b[24:], uint32(rate))
	binary.LittleEndian.PutUint32(b[28:], uint32(2*rate))
	binary.LittleEndian.PutUint16(b[32:], 2)
	binary.LittleEndian.PutUint16(b[34:], 16)
	copy(b[36:], "data")
	binary.LittleEndian.PutUint32(b[40:], uint32(data))
	for _, s := range samples {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

// speechSeconds is the length of the signal Speech cuts clips from: long
// enough that clips of a trace's many lengths start at many places.
const speechSeconds = 120

// Speech cuts speech-like clips of any length from one long signal, made
// once: a replayed trace's transcriptions each need audio of their own
// length, and cutting is a copy where making is milliseconds a second.
type Speech struct{ samples []int16 }

// NewSpeech makes the signal clips are cut from, drawn from seed.
func NewSpeech(seed uint64) *Speech {
	return &Speech{samples: speechLike(speechSeconds*AudioRate, rand.New(rand.NewPCG(seed, 1<<61)))}
}

// Clip is seconds of the signal as a WAV, starting at a place chosen by
// index (the signal wraps around), or an error for a length out of
// range.
func (s *Speech) Clip(seconds float64, index int) (content.Media, error) {
	if !(seconds > 0 && seconds <= maxAudioSeconds) {
		return content.Media{}, fmt.Errorf("audio of %g s: want more than 0 and at most %d", seconds, maxAudioSeconds)
	}
	n := max(1, int(math.Round(seconds*AudioRate)))
	out := make([]int16, n)
	at := (index * 7919 * AudioRate / 10) % len(s.samples) // 791.9 s apart: far from the last clip's start
	for i := 0; i < n; {
		i += copy(out[i:], s.samples[at:])
		at = 0
	}
	return content.Media{MIME: "audio/wav", Data: EncodeWAV(out, AudioRate), Seconds: float64(n) / AudioRate}, nil
}

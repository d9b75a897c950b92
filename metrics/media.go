package metrics

import "github.com/tpsbench/tpsbench/record"

// mediaAcc counts the media a step's requests sent, and the audio its
// completed requests processed against the time they took.
type mediaAcc struct {
	images, audios, videos int64
	audioSeconds           float64    // of the completed requests with audio of a known length
	processing             float64    // their seconds from send to answer's end
	upload                 *histogram // of the requests with media: the time their request took to write
}

// sent adds what a measured request sent.
func (m *mediaAcc) sent(r *record.Record) {
	m.images += int64(r.Images)
	m.audios += int64(r.Audios)
	m.videos += int64(r.Videos)
	if r.Images+r.Audios+r.Videos > 0 && r.Upload > 0 {
		if m.upload == nil {
			m.upload = newLatency()
		}
		m.upload.add(float64(r.Upload))
	}
}

// completed adds a completed request's audio and its processing time.
func (m *mediaAcc) completed(r *record.Record) {
	if r.AudioSeconds > 0 && r.Done > r.Sent {
		m.audioSeconds += r.AudioSeconds
		m.processing += float64(r.Done-r.Sent) / 1e9
	}
}

// summary sets the step's media counts and audio figures over its window.
func (m *mediaAcc) summary(sum *Summary, window float64) {
	sum.Images, sum.Audios, sum.Videos = m.images, m.audios, m.videos
	if m.upload != nil {
		d := m.upload.summary(1e6)
		sum.Upload = &d
	}
	if m.processing > 0 {
		sum.AudioSeconds = m.audioSeconds
		sum.RealTimeFactor = m.audioSeconds / m.processing
		if window > 0 {
			sum.AudioSecondsPerSecond = m.audioSeconds / window
		}
	}
}

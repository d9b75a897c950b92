package client

import (
	"fmt"

	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/record"
)

// checkMedia says why p cannot send media, or nil: chat carries any as
// content parts, a transcription exactly one audio, other APIs none.
func (p *protocol) checkMedia(media []Media) error {
	switch {
	case p.transcribes:
		return oneAudio(media)
	case len(media) > 0 && !p.media:
		return fmt.Errorf("the %s API carries no images, audio or video here: send them with --api chat", p.name)
	}
	return nil
}

// countMedia records what media a request sent: how many of each kind,
// and the audio's length where known.
func countMedia(rec *record.Record, media []Media) {
	rec.Images, rec.Audios, rec.Videos, rec.AudioSeconds = 0, 0, 0, 0
	for _, m := range media {
		switch m.Kind() {
		case content.KindAudio:
			rec.Audios++
			rec.AudioSeconds += m.Seconds
		case content.KindVideo:
			rec.Videos++
		default:
			rec.Images++
		}
	}
}

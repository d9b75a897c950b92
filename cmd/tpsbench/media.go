package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/tpsbench/tpsbench/client"
	"github.com/tpsbench/tpsbench/content"
	"github.com/tpsbench/tpsbench/workload"
)

// mediaFlags are what media requests carry: images, audio and videos,
// synthetic or from a folder.
type mediaFlags struct {
	imagesPerRequest       int
	imageSize, imageFormat string
	imageDir               string
	audioPerRequest        int
	audioDuration          time.Duration
	audioDir               string
	videosPerRequest       int
	videoSize              string
	videoFrames            int
	videoFPS               float64
	videoDir               string
}

func (f *mediaFlags) defineMediaFlags(fl *pflag.FlagSet) {
	fl.IntVar(&f.imagesPerRequest, "images-per-request", 0, "send this many images with each prompt (image_url parts, data URLs; chat API), synthetic or --image-dir's, for a vision-language model")
	fl.StringVar(&f.imageSize, "image-size", "", "the synthetic images' size, WIDTHxHEIGHT (default 512x512); several, comma-separated, are a step each: a sweep over image sizes")
	fl.StringVar(&f.imageFormat, "image-format", "png", "the synthetic images' format: png or jpeg")
	fl.StringVar(&f.imageDir, "image-dir", "", "send the images of this folder (.png, .jpg, .gif, .webp, .bmp; in name order, cycled) in place of synthetic ones")
	fl.IntVar(&f.audioPerRequest, "audio-per-request", 0, "send this much audio with each prompt (input_audio parts; chat API), synthetic speech-like WAV or --audio-dir's, for an audio-language model (AIPerf's --audio-batch-size)")
	fl.DurationVar(&f.audioDuration, "audio-duration", 0, "the synthetic audio's length (default 10s; 16 kHz mono WAV), with --audio-per-request or --api transcription (AIPerf's --audio-length-mean)")
	fl.StringVar(&f.audioDir, "audio-dir", "", "send the audio files of this folder (.wav, .mp3, .flac, .ogg, .m4a; in name order, cycled) in place of synthetic audio; a WAV's length is read from its header, for the real-time factor")
	fl.IntVar(&f.videosPerRequest, "videos-per-request", 0, "send this many videos with each prompt (video_url parts, data URLs, as vLLM and SGLang take them; chat API), synthetic or --video-dir's")
	fl.StringVar(&f.videoSize, "video-size", "", "the synthetic videos' frame size, WIDTHxHEIGHT (default 256x256)")
	fl.IntVar(&f.videoFrames, "video-frames", 8, "the synthetic videos' frames (Motion-JPEG AVI)")
	fl.Float64Var(&f.videoFPS, "video-fps", 2, "the synthetic videos' frame rate: their length is --video-frames over it")
	fl.StringVar(&f.videoDir, "video-dir", "", "send the videos of this folder (.mp4, .avi, .webm, .mov, .mkv; in name order, cycled) in place of synthetic ones")
}

// maxMediaPerRequest bounds each kind's count a request: servers take a
// few (vLLM's --limit-mm-per-prompt), never hundreds.
const maxMediaPerRequest = 64

// defaultAudio is the length of synthetic audio when none is given.
const defaultAudio = 10 * time.Second

// resolveMedia reads and makes the media requests carry: images, audio
// and videos for a chat API's content parts, or the audio a
// transcription sends, one a request.
func resolveMedia(f *runFlags, c *runConfig) error {
	images := f.imageSize != "" || f.imagesPerRequest != 0 || f.imageDir != ""
	audio := f.audioPerRequest != 0 || f.audioDir != "" || f.audioDuration != 0
	videos := f.videosPerRequest != 0 || f.videoDir != "" || f.videoSize != ""
	transcribe := f.api == client.APITranscription
	cols := f.columns.Image != "" || f.columns.Audio != "" || f.columns.Video != ""
	switch {
	case !images && !audio && !videos && !transcribe && !cols:
		return nil
	case transcribe && (images || videos || f.audioPerRequest > 1 || f.columns.Image != "" || f.columns.Video != ""):
		return usagef("--api transcription sends one audio a request: no images, videos or --audio-per-request past 1")
	case transcribe && f.trace != "" && !audio && !cols:
		return nil // each replayed record's audio, of its length
	case transcribe && f.columns.Audio != "" && audio:
		return usagef("--api transcription with --audio-column transcribes the dataset's audio: not with --audio-per-request, --audio-duration or --audio-dir")
	case !transcribe && f.api != client.APIAuto && f.api != client.APIChat:
		return usagef("images, audio and videos go in chat messages: --api chat (or auto), not %s", f.api)
	case f.trace != "" || f.turns > 0:
		return usagef("media go with synthetic or listed prompts: not with --trace or --turns")
	}
	for _, n := range []struct {
		flag string
		v    int
	}{{"--images-per-request", f.imagesPerRequest}, {"--audio-per-request", f.audioPerRequest}, {"--videos-per-request", f.videosPerRequest}} {
		if n.v < 0 || n.v > maxMediaPerRequest {
			return usagef("%s %d: want 1 to %d", n.flag, n.v, maxMediaPerRequest)
		}
	}
	if images {
		if err := resolveImages(f, c); err != nil {
			return err
		}
	}
	if audio || transcribe && f.columns.Audio == "" {
		if err := resolveAudio(f, c); err != nil {
			return err
		}
	}
	if videos {
		return resolveVideos(f, c)
	}
	return nil
}

// resolveImages makes --image-size's synthetic images, a pool a size, or
// reads --image-dir's.
func resolveImages(f *runFlags, c *runConfig) error {
	f.imagesPerRequest = max(f.imagesPerRequest, 1)
	if f.imageDir != "" {
		if f.imageSize != "" {
			return usagef("--image-dir's images have their own sizes: not with --image-size")
		}
		pool, err := mediaDir(c, "--image-dir", f.imageDir, content.KindImage)
		c.images = [][]content.Media{pool}
		return err
	}
	if f.imageFormat != workload.ImagePNG && f.imageFormat != workload.ImageJPEG {
		return usagef("--image-format %q: want png or jpeg", f.imageFormat)
	}
	size := f.imageSize
	if size == "" {
		size = "512x512"
	}
	var err error
	if c.imageSizes, err = workload.ParseImageSizes(size); err != nil {
		return usagef("--image-size: %v", err)
	}
	if len(c.imageSizes) > 1 && (len(c.levels) > 1 || f.sweepRates != "" || f.findMax || f.factor != "") {
		return usagef("several --image-size are a step each: not with --sweep, --sweep-rates, --find-max or --factor")
	}
	for _, size := range c.imageSizes {
		pool, err := workload.SyntheticImages(size, f.imageFormat, f.seed)
		if err != nil {
			return usagef("--image-size: %v", err)
		}
		c.images = append(c.images, pool)
	}
	return nil
}

// resolveAudio makes synthetic audio of --audio-duration, or reads
// --audio-dir's.
func resolveAudio(f *runFlags, c *runConfig) error {
	f.audioPerRequest = max(f.audioPerRequest, 1)
	var err error
	if f.audioDir != "" {
		if f.audioDuration != 0 {
			return usagef("--audio-dir's files have their own lengths: not with --audio-duration")
		}
		c.audio, err = mediaDir(c, "--audio-dir", f.audioDir, content.KindAudio)
		return err
	}
	d := f.audioDuration
	if d == 0 {
		d = defaultAudio
	}
	if c.audio, err = workload.SyntheticAudio(d.Seconds(), f.seed); err != nil {
		return usagef("--audio-duration: %v", err)
	}
	return nil
}

// resolveVideos makes synthetic videos of --video-size, --video-frames
// and --video-fps, or reads --video-dir's.
func resolveVideos(f *runFlags, c *runConfig) error {
	f.videosPerRequest = max(f.videosPerRequest, 1)
	var err error
	if f.videoDir != "" {
		if f.videoSize != "" {
			return usagef("--video-dir's videos have their own sizes: not with --video-size")
		}
		c.videos, err = mediaDir(c, "--video-dir", f.videoDir, content.KindVideo)
		return err
	}
	size := f.videoSize
	if size == "" {
		size = "256x256"
	}
	sizes, err := workload.ParseImageSizes(size)
	if err != nil || len(sizes) != 1 {
		return usagef("--video-size %q: want one WIDTHxHEIGHT", size)
	}
	if c.videos, err = workload.SyntheticVideos(workload.VideoShape{Size: sizes[0], Frames: f.videoFrames, FPS: f.videoFPS}, f.seed); err != nil {
		return usagef("--video-frames, --video-fps: %v", err)
	}
	return nil
}

// mediaDir reads a folder's files of kind, noting how many it kept and
// left out.
func mediaDir(c *runConfig, flag, dir, kind string) ([]content.Media, error) {
	pool, skipped, err := workload.MediaDir(dir, kind)
	if err != nil {
		return nil, usagef("%s: %v", flag, err)
	}
	bytes := 0
	for _, m := range pool {
		bytes += len(m.Data)
	}
	note := fmt.Sprintf("%s: %d %s files (%.1f MB) sent in name order, cycled", flag, len(pool), kind, float64(bytes)/1e6)
	if skipped > 0 {
		note += fmt.Sprintf("; %d other entries left out (not %s files by their extension, or not regular files)", skipped, kind)
	}
	c.notes = append(c.notes, note)
	return pool, nil
}

// withMedia is src with the media its requests carry: the image pool of
// step image's size, then audio, then videos.
func (c *runConfig) withMedia(src workload.Source, f *runFlags, image int) workload.Source {
	if len(c.images) > 0 {
		src = workload.WithMedia{Source: src, Pool: c.images[image], PerRequest: f.imagesPerRequest}
	}
	if len(c.audio) > 0 {
		src = workload.WithMedia{Source: src, Pool: c.audio, PerRequest: f.audioPerRequest}
	}
	if len(c.videos) > 0 {
		src = workload.WithMedia{Source: src, Pool: c.videos, PerRequest: f.videosPerRequest}
	}
	return src
}

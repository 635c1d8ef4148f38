package media

import (
	"bytes"
	"strconv"
)

// A video's link is an HLS playlist of the video's duration, cut into
// segments of segmentSecs seconds. Each segment is a real MPEG-TS
// stream a player can play: H.264 (constrained baseline), 256×144 at
// videoFPS frames a second, a grey picture (an IDR frame whose
// macroblocks predict the mid-grey of an empty picture, then frames that
// skip every macroblock), so a segment of 10 seconds is about 19 KB and
// costs microseconds to write. Timestamps run on across segments, so a
// player sees one continuous video.

const (
	videoFPS     = 10
	videoMBWidth = 16 // 256 pixels
	videoMBHigh  = 9  // 144 pixels
	tsPacket     = 188
	pidPMT       = 0x1000
	pidVideo     = 0x100
	ptsPerFrame  = 90000 / videoFPS
	ptsStart     = 90000 // the first frame is shown at 1 s
)

// hlsPlaylist is the VOD media playlist of a video of secs seconds.
func hlsPlaylist(secs int) []byte {
	b := []byte("#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-PLAYLIST-TYPE:VOD\n#EXT-X-TARGETDURATION:" +
		strconv.Itoa(segmentSecs) + "\n#EXT-X-MEDIA-SEQUENCE:0\n")
	for i := range segmentCount(secs) {
		b = append(b, "#EXTINF:"...)
		b = strconv.AppendInt(b, int64(min(segmentSecs, secs-i*segmentSecs)), 10)
		b = append(b, ".000,\n"...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ".ts\n"...)
	}
	return append(b, "#EXT-X-ENDLIST\n"...)
}

// hlsSegment is segment seg of a video of secs seconds.
func hlsSegment(secs, seg int) []byte {
	frames := min(segmentSecs, secs-seg*segmentSecs) * videoFPS
	w := &tsWriter{b: make([]byte, 0, (frames+4)*tsPacket)}
	w.psi(0, patSection())
	w.psi(pidPMT, pmtSection())
	first := seg * segmentSecs * videoFPS // frames before this segment
	for k := range frames {
		pts := int64(ptsStart + (first+k)*ptsPerFrame)
		au := make([]byte, 0, 64)
		if k == 0 {
			au = appendNAL(au, 0, 9, []byte{0x10}) // access unit delimiter: I slices
			au = appendNAL(au, 3, 7, spsRBSP())
			au = appendNAL(au, 3, 8, ppsRBSP())
			au = appendNAL(au, 3, 5, idrSliceRBSP(seg%2))
		} else {
			au = appendNAL(au, 0, 9, []byte{0x30}) // access unit delimiter: I and P slices
			au = appendNAL(au, 2, 1, skipSliceRBSP(k))
		}
		w.pes(pesPacket(au, pts), pts-ptsPerFrame, k == 0)
	}
	return w.b
}

// bitWriter writes the bits of an H.264 RBSP, most significant first.
type bitWriter struct {
	b    []byte
	used uint // bits used in the last byte, 0 when it is full or there is none
}

func (w *bitWriter) bits(v uint64, n int) {
	for i := n - 1; i >= 0; i-- {
		if w.used == 0 {
			w.b = append(w.b, 0)
		}
		w.b[len(w.b)-1] |= byte(v>>uint(i)&1) << (7 - w.used)
		w.used = (w.used + 1) % 8
	}
}

// ue writes an unsigned Exp-Golomb code.
func (w *bitWriter) ue(v uint64) {
	n := 0
	for x := v + 1; x > 1; x >>= 1 {
		n++
	}
	w.bits(0, n)
	w.bits(v+1, n+1)
}

// se writes a signed Exp-Golomb code (only 0 is written here).
func (w *bitWriter) se(v int64) {
	if v <= 0 {
		w.ue(uint64(-2 * v))
		return
	}
	w.ue(uint64(2*v - 1))
}

// trailing writes rbsp_trailing_bits: a 1, then 0s to the byte's end.
func (w *bitWriter) trailing() []byte {
	w.bits(1, 1)
	w.used = 0
	return w.b
}

// log2MaxFrameNum is the bits of frame_num: more than the frames of a segment.
const log2MaxFrameNum = 8

func spsRBSP() []byte {
	w := &bitWriter{}
	w.bits(66, 8)   // profile_idc: baseline
	w.bits(0xC0, 8) // constraint_set0 and set1: constrained baseline
	w.bits(30, 8)   // level_idc 3.0
	w.ue(0)         // seq_parameter_set_id
	w.ue(log2MaxFrameNum - 4)
	w.ue(2) // pic_order_cnt_type 2: output order is decoding order
	w.ue(1) // max_num_ref_frames
	w.bits(0, 1)
	w.ue(videoMBWidth - 1)
	w.ue(videoMBHigh - 1)
	w.bits(1, 1) // frame_mbs_only_flag
	w.bits(1, 1) // direct_8x8_inference_flag
	w.bits(0, 1) // frame_cropping_flag
	w.bits(0, 1) // vui_parameters_present_flag
	return w.trailing()
}

func ppsRBSP() []byte {
	w := &bitWriter{}
	w.ue(0)      // pic_parameter_set_id
	w.ue(0)      // seq_parameter_set_id
	w.bits(0, 1) // entropy_coding_mode_flag: CAVLC
	w.bits(0, 1) // bottom_field_pic_order_in_frame_present_flag
	w.ue(0)      // num_slice_groups_minus1
	w.ue(0)      // num_ref_idx_l0_default_active_minus1
	w.ue(0)      // num_ref_idx_l1_default_active_minus1
	w.bits(0, 3) // weighted_pred_flag, weighted_bipred_idc
	w.se(0)      // pic_init_qp_minus26
	w.se(0)      // pic_init_qs_minus26
	w.se(0)      // chroma_qp_index_offset
	w.bits(0, 3) // deblocking_filter_control_present_flag, constrained_intra_pred_flag, redundant_pic_cnt_present_flag
	return w.trailing()
}

// idrSliceRBSP is an IDR picture whose every macroblock is Intra 16×16
// with DC prediction and no residual: with nothing to predict from, the
// first one is mid-grey, and so are the rest.
func idrSliceRBSP(idrPicID int) []byte {
	w := &bitWriter{}
	w.ue(0) // first_mb_in_slice
	w.ue(7) // slice_type: I, as every slice of the picture
	w.ue(0) // pic_parameter_set_id
	w.bits(0, log2MaxFrameNum)
	w.ue(uint64(idrPicID)) // differs between consecutive IDR pictures
	w.bits(0, 2)           // no_output_of_prior_pics_flag, long_term_reference_flag
	w.se(0)                // slice_qp_delta
	for range videoMBWidth * videoMBHigh {
		w.ue(3)      // mb_type I_16x16_2_0_0: DC prediction, no coded blocks
		w.ue(0)      // intra_chroma_pred_mode: DC
		w.se(0)      // mb_qp_delta
		w.bits(1, 1) // coeff_token of the luma DC block: no coefficients
	}
	return w.trailing()
}

// skipSliceRBSP is a P picture that skips every macroblock: the previous
// picture again.
func skipSliceRBSP(frameNum int) []byte {
	w := &bitWriter{}
	w.ue(0) // first_mb_in_slice
	w.ue(5) // slice_type: P, as every slice of the picture
	w.ue(0) // pic_parameter_set_id
	w.bits(uint64(frameNum%(1<<log2MaxFrameNum)), log2MaxFrameNum)
	w.bits(0, 3) // num_ref_idx_active_override_flag, ref_pic_list_modification_flag_l0, adaptive_ref_pic_marking_mode_flag
	w.se(0)      // slice_qp_delta
	w.ue(videoMBWidth * videoMBHigh)
	return w.trailing()
}

// appendNAL appends a NAL unit in the Annex B byte stream format, with
// emulation prevention bytes in its payload.
func appendNAL(b []byte, refIdc, typ byte, rbsp []byte) []byte {
	b = append(b, 0, 0, 0, 1, refIdc<<5|typ)
	zeros := 0
	for _, c := range rbsp {
		if zeros >= 2 && c <= 3 {
			b = append(b, 3)
			zeros = 0
		}
		b = append(b, c)
		if c == 0 {
			zeros++
		} else {
			zeros = 0
		}
	}
	return b
}

// pesPacket wraps an access unit in a PES packet with its PTS.
func pesPacket(au []byte, pts int64) []byte {
	n := 3 + 5 + len(au) // the bytes after PES_packet_length
	b := []byte{0, 0, 1, 0xE0, byte(n >> 8), byte(n), 0x84, 0x80, 5}
	if n > 0xFFFF {
		b[4], b[5] = 0, 0 // unbounded, allowed for video in a transport stream
	}
	b = append(b,
		byte(0x21|(pts>>29)&0x0E),
		byte(pts>>22), byte(0x01|(pts>>14)&0xFE),
		byte(pts>>7), byte(0x01|(pts<<1)&0xFE))
	return append(b, au...)
}

// psiSection finishes a PSI section: its length and CRC.
func psiSection(tableID byte, body []byte) []byte {
	n := 5 + len(body) + 4 // from table_id_extension to the CRC
	b := append([]byte{tableID, 0xB0 | byte(n>>8), byte(n), 0x00, 0x01, 0xC1, 0x00, 0x00}, body...)
	crc := crc32MPEG(b)
	return append(b, byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc))
}

// patSection names program 1 and its PMT.
func patSection() []byte {
	return psiSection(0x00, []byte{0x00, 0x01, 0xE0 | pidPMT>>8, pidPMT & 0xFF})
}

// pmtSection lists one H.264 stream, which carries the clock too.
func pmtSection() []byte {
	return psiSection(0x02, []byte{
		0xE0 | pidVideo>>8, pidVideo & 0xFF, // PCR_PID
		0xF0, 0x00, // program_info_length
		0x1B, 0xE0 | pidVideo>>8, pidVideo & 0xFF, 0xF0, 0x00, // H.264, no descriptors
	})
}

// crc32MPEG is the CRC of PSI sections: CRC-32 with the bits not
// reflected and no final XOR (hash/crc32 reflects them).
func crc32MPEG(b []byte) uint32 {
	crc := uint32(0xFFFFFFFF)
	for _, c := range b {
		crc ^= uint32(c) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04C11DB7
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// tsWriter cuts PSI sections and PES packets into transport stream packets.
type tsWriter struct {
	b  []byte
	cc map[int]byte // continuity counters by PID
}

func (w *tsWriter) next(pid int) byte {
	if w.cc == nil {
		w.cc = make(map[int]byte)
	}
	c := w.cc[pid]
	w.cc[pid] = (c + 1) & 0x0F
	return c
}

// psi writes a section that fits in one packet.
func (w *tsWriter) psi(pid int, section []byte) {
	p := []byte{0x47, 0x40 | byte(pid>>8), byte(pid), 0x10 | w.next(pid), 0x00}
	p = append(p, section...)
	for len(p) < tsPacket {
		p = append(p, 0xFF)
	}
	w.b = append(w.b, p...)
}

// pes writes a PES packet; its first packet carries the clock (PCR) and,
// for a picture a decoder can start at, the random access flag.
func (w *tsWriter) pes(pes []byte, pcr int64, randomAccess bool) {
	for first := true; len(pes) > 0; first = false {
		var af []byte // the adaptation field after its length byte
		if first {
			flags := byte(0x10) // PCR
			if randomAccess {
				flags |= 0x40
			}
			af = append(af, flags,
				byte(pcr>>25), byte(pcr>>17), byte(pcr>>9), byte(pcr>>1), byte(pcr<<7)|0x7E, 0x00)
		}
		room := tsPacket - 4
		if af != nil {
			room -= 1 + len(af)
		}
		if len(pes) < room { // stuff the adaptation field to fill the packet
			short := room - len(pes)
			switch {
			case af != nil:
				af = append(af, bytes.Repeat([]byte{0xFF}, short)...)
			case short == 1: // the field's length byte alone
				af = []byte{}
			default: // its length byte, a byte of flags, stuffing
				af = append([]byte{0x00}, bytes.Repeat([]byte{0xFF}, short-2)...)
			}
			room = len(pes)
		}
		pusi := byte(0)
		if first {
			pusi = 0x40
		}
		ctl := byte(0x10)
		if af != nil {
			ctl = 0x30
		}
		w.b = append(w.b, 0x47, pusi|byte(pidVideo>>8), byte(pidVideo&0xFF), ctl|w.next(pidVideo))
		if af != nil {
			w.b = append(w.b, byte(len(af)))
			w.b = append(w.b, af...)
		}
		w.b = append(w.b, pes[:room]...)
		pes = pes[room:]
	}
}

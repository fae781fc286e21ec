//! `bench_grpc_transport.py --variant native-floor`: the floor under a native answerer of the pack's calls.
//!
//! The same loop as the benchmark's `serve_h2_floor` (Python), in Rust with the standard library only: one
//! thread, one blocking socket, HTTP/2 frames (RFC 9113) read and written by hand, every request answered with an
//! empty message and `grpc-status: 0`, without decoding a header. Not a server: a measure of what being woken for a
//! call, reading it and answering it costs a process that does not enter the interpreter (what a native transport
//! answering the refused `Remediate` would spend on it). Built by the benchmark with `rustc -O`; prints its port.

use std::io::{Read, Write};
use std::net::TcpListener;

const DATA: u8 = 0;
const HEADERS: u8 = 1;
const SETTINGS: u8 = 4;
const PING: u8 = 6;
const WINDOW_UPDATE: u8 = 8;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const ACK: u8 = 0x1;
/// `:status 200` (static index 8), `content-type: application/grpc` (a literal of static name 31, not indexed)
const ANSWER_HEADERS: &[u8] = b"\x88\x0f\x10\x10application/grpc";
/// `grpc-status: 0`, a literal with a literal name, not indexed
const ANSWER_TRAILERS: &[u8] = b"\x00\x0bgrpc-status\x010";

fn frame(out: &mut Vec<u8>, kind: u8, flags: u8, stream: u32, payload: &[u8]) {
    let n = payload.len() as u32;
    out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8, kind, flags]);
    out.extend_from_slice(&stream.to_be_bytes());
    out.extend_from_slice(payload);
}

fn main() -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    println!("{}", listener.local_addr()?.port());
    std::io::stdout().flush()?;
    let (mut conn, _) = listener.accept()?;
    conn.set_nodelay(true)?;
    let mut buffer: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut chunk = vec![0u8; 1 << 16];
    let mut start = 0usize; // where the unread bytes of `buffer` begin
    let mut preface = false;
    let mut out: Vec<u8> = Vec::with_capacity(256);
    loop {
        let n = conn.read(&mut chunk)?;
        if n == 0 {
            return Ok(());
        }
        buffer.extend_from_slice(&chunk[..n]);
        if !preface {
            if buffer.len() < 24 {
                continue;
            }
            start = 24;
            preface = true;
            frame(&mut out, SETTINGS, 0, 0, b"");
        }
        while buffer.len() - start >= 9 {
            let head = &buffer[start..start + 9];
            let length = ((head[0] as usize) << 16) | ((head[1] as usize) << 8) | head[2] as usize;
            if buffer.len() - start < 9 + length {
                break;
            }
            let (kind, flags) = (head[3], head[4]);
            let stream = u32::from_be_bytes([head[5], head[6], head[7], head[8]]) & 0x7FFF_FFFF;
            let payload = buffer[start + 9..start + 9 + length].to_vec();
            start += 9 + length;
            if kind == SETTINGS && flags & ACK == 0 {
                frame(&mut out, SETTINGS, ACK, 0, b"");
            } else if kind == PING && flags & ACK == 0 {
                frame(&mut out, PING, ACK, 0, &payload);
            } else if kind == DATA {
                if length > 0 {
                    frame(&mut out, WINDOW_UPDATE, 0, 0, &(length as u32).to_be_bytes());
                }
                if flags & END_STREAM != 0 {
                    frame(&mut out, HEADERS, END_HEADERS, stream, ANSWER_HEADERS);
                    frame(&mut out, DATA, 0, stream, b"\x00\x00\x00\x00\x00");
                    frame(&mut out, HEADERS, END_HEADERS | END_STREAM, stream, ANSWER_TRAILERS);
                }
            }
        }
        buffer.drain(..start);
        start = 0;
        if !out.is_empty() {
            conn.write_all(&out)?;
            out.clear();
        }
    }
}

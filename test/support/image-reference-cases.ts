// Image references and what a node does with them: accept (pull it) or refuse
// (InvalidImageName). The cases are drawn from the test suite of the reference parser the
// kubelet and containerd use (the distribution reference package: its parse, regexp and
// normalisation tests), written here in our own words and read the way a node reads a
// container image, i.e. as a "normalized named" reference. scripts/image-reference-oracle
// checks every row against that parser itself.

const F64 = 'f'.repeat(64);
const HEX64 = '0123456789abcdef'.repeat(4);
const SHA256 = `sha256:${F64}`;

export interface ImageReferenceCase {
  readonly ref: string;
  readonly accepted: boolean;
  /** Why, in a few words. */
  readonly why: string;
}

const accept = (ref: string, why: string): ImageReferenceCase => ({ ref, accepted: true, why });
const refuse = (ref: string, why: string): ImageReferenceCase => ({ ref, accepted: false, why });

export const IMAGE_REFERENCE_CASES: readonly ImageReferenceCase[] = [
  // -- names on Docker Hub: one component gains "library/" -----------------------------------
  accept('debian', 'a bare name is an official Docker Hub image'),
  accept('library/debian', 'the official namespace, written out'),
  accept('docker/docker', 'a Docker Hub namespace'),
  accept('test_com', 'one underscore separates name parts'),
  accept('dock__er/docker', 'two underscores are one separator'),
  accept('docker-rules/docker', 'a dash inside a component'),
  accept('docker---rules/docker', 'several dashes are one separator'),
  accept('d/docker', 'single-character components'),
  accept('jess/t', 'single-character image name'),
  accept('thisisthesongthatneverendsitgoesonandonandonthisisthesongthatnev', '64 characters that are not all hex'),
  accept('lowercase:Uppercase', 'a tag may hold uppercase letters'),
  accept('foo_bar.com:8080', 'one component: "8080" is a tag, not a port'),
  accept('foo/foo_bar.com:8080', '"foo" is a namespace; the last part has a tag'),
  accept('test.com:tag', 'no "/", so "test.com" is a name with a tag'),
  accept('test.com:5000', 'no "/", so 5000 is a tag'),
  accept('192.168.1.1', 'no "/": a name made of digits and dots'),
  accept('192.168.1.1:tag', 'the same, with a tag'),
  accept('192.168.0.1:80', 'the same, with "80" as the tag'),
  accept(
    'localhost:8080@' + `sha256:${'be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912'}`,
    'name "localhost", tag 8080, and a digest',
  ),
  accept(`localhost@sha256:${'be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912'}`, 'name "localhost" with a digest'),
  accept(`${'a/'.repeat(127)}a:tag-puts-this-over-max`, 'a path of exactly 255 characters; the tag does not count'),
  accept(
    `docker.io/${'1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a'}`,
    '64 hex digits are a name once a registry is given',
  ),
  accept('a'.repeat(247), 'a bare name of 247 characters: 255 with "library/"'),

  // -- registries: a first component with ".", ":" or uppercase, or "localhost" ----------------
  accept('localhost/debian', '"localhost" is always a registry'),
  accept('localhost/library/debian', 'the same, with a namespace'),
  accept('LOCALDOMAIN/debian', 'an uppercase first component is read as a registry host'),
  accept('Docker/docker', 'the same: "Docker" is a host name'),
  accept('DOCKER/docker', 'the same, all uppercase'),
  accept('Asdf.com/foo/bar', 'host names may hold uppercase letters'),
  accept('index.docker.io/debian', "Docker Hub's legacy host"),
  accept('docker.io/docker/docker', 'Docker Hub by name'),
  accept('test.com/repo:tag', 'registry, repository, tag'),
  accept('test:5000/repo', 'a host with a port'),
  accept('test:5000/repo:tag', 'a port and a tag'),
  accept(`test:5000/repo@${SHA256}`, 'a port and a digest'),
  accept(`test:5000/repo:tag@${SHA256}`, 'a tag and a digest together'),
  accept('sub-dom1.foo.com/bar/baz/quux:some-long-tag', 'dashes in a host, a deep path'),
  accept('b.gcr.io/test.example.com/my-app:test.example.com', 'dots in path components and in the tag'),
  accept('xn--n3h.com/myimage:xn--n3h.com', 'a punycode host'),
  accept(`xn--7o8h.com/myimage:xn--7o8h.com@${SHA256}`, 'a punycode host, a tag and a digest'),
  accept('registry.io/foo/project--id.module--name.ver---sion--name', 'runs of dashes between parts'),
  accept('example.com/some_separator__underscore/myimage', 'one and two underscores'),
  accept('127.0.0.1:5000/docker/docker', 'an IPv4 registry with a port'),
  accept('192.168.1.1/repo', 'an IPv4 registry'),
  accept('192.168.1.1:5000/repo:5050', 'an IPv4 registry, a port, and a numeric tag'),
  accept('192.168.0.1:8/debian', 'a one-digit port'),
  accept('192.168.1.1:750050/repo', 'the port is digits, not range-checked'),
  accept('[2001:db8::1]/repo', 'an IPv6 registry in brackets'),
  accept('[2001:db8:1:2:3:4:5:6]/repo:tag', 'a full IPv6 address'),
  accept('[2001:db8::1]:5000/repo', 'IPv6 with a port'),
  accept(`[2001:db8::1]:5000/repo:tag@${SHA256}`, 'IPv6, port, tag and digest'),
  accept('[2001:db8::]:5000/repo', 'IPv6 ending in "::"'),
  accept('[::1]:5000/repo', 'the IPv6 loopback'),
  accept('[fc00:1:2:3:4:5:6:7]:5000/library/debian', 'IPv6 with a namespace'),
  accept(`example.com/${'a'.repeat(255)}:tag`, 'a 255-character path after a registry'),
  accept('my_org.x/app', 'not a valid host (underscore), so the whole of it is a Docker Hub path'),

  // -- digests: the algorithms a node can verify ----------------------------------------------
  accept(`app@sha256:${HEX64}`, 'sha256: 64 lowercase hex digits'),
  accept(`app@sha384:${HEX64}${HEX64.slice(0, 32)}`, 'sha384: 96 digits'),
  accept(`validname@sha512:${'f'.repeat(128)}`, 'sha512: 128 digits (the node links it)'),
  refuse(`repo@sha256:${'f'.repeat(34)}`, 'a sha256 digest of the wrong length'),
  refuse(`validname@invaliddigest:${F64}`, 'an algorithm no node can verify'),
  refuse(`app@md5:${HEX64}`, 'md5 is not a registered algorithm'),
  refuse(`app@sha256:${F64.toUpperCase()}`, 'digest hex must be lowercase'),
  refuse('registry.com:8080/myapp@sha256:badbadbadbad', 'too few digest digits'),
  refuse('registry.com:8080/myapp@bad', 'no algorithm'),
  refuse('registry.com:8080/myapp@2bad', 'an algorithm cannot start with a digit'),
  refuse(`@${SHA256}`, 'a digest without a name'),

  // -- refused names ------------------------------------------------------------------------
  refuse('', 'empty'),
  refuse(':justtag', 'a tag without a name'),
  refuse('1a3f5e7d9c1b3a5f7e9d1c3b5a7f9e1d3c5b7a9f1e3d5d7c9b1a3f5e7d9c1b3a', 'a bare 64-digit hex string is an image ID'),
  refuse('Uppercase:tag', 'an uppercase repository name'),
  refuse('Foo/FarB', 'a registry "Foo" with an uppercase repository'),
  refuse('docker/Docker', 'uppercase in the repository'),
  refuse('docker.io/docker/Docker', 'the same, after a registry'),
  refuse('test:5000/Uppercase/lowercase:tag', 'uppercase after a registry'),
  refuse(`domain/${'a'.repeat(256)}:tag`, 'a path of 263 characters'),
  refuse('a'.repeat(248), 'a bare name of 248 characters: 256 with "library/"'),
  refuse(`${'this_is_not_a_valid_namespace_because_its_lenth_is_greater_than_255_'.repeat(4)}/docker`, 'a namespace over 255'),
  refuse('aa/asdf$$^/aa', 'characters outside the grammar'),
  refuse('https://github.com/docker/docker', 'a URL is not a reference'),
  refuse('-docker', 'a leading dash'),
  refuse('-docker/docker', 'a leading dash in the namespace'),
  refuse('docker-/docker', 'a trailing dash in the namespace'),
  refuse('-docker-/docker', 'dashes at both ends'),
  refuse('-docker.io/docker/docker', 'a host cannot start with a dash'),
  refuse('docker./docker', 'a host cannot end with a dot'),
  refuse('.docker/docker', 'a host cannot start with a dot'),
  refuse('do..cker/docker', 'two dots in a row'),
  refuse('dock..er/docker', 'two dots in a row, in a namespace'),
  refuse('dock_.er/docker', 'two separators in a row'),
  refuse('dock-.er/docker', 'a dash then a dot'),
  refuse('____/____', 'underscores alone'),
  refuse('_docker/_docker', 'a leading underscore'),
  refuse('docker///docker', 'empty components'),
  refuse('docker.io/docker///docker', 'empty components after a registry'),
  refuse('a//a/a', 'an empty component'),
  refuse('a/a/a/a/', 'a trailing slash'),
  refuse('docker/', 'no repository after the slash'),
  refuse('example.com/__underscore/myimage', 'a component cannot start with "__"'),
  refuse('example.com/..dots/myimage', 'a component cannot start with dots'),
  refuse('example.com/.dots/myimage', 'a component cannot start with a dot'),
  refuse('example.com/nodouble..dots/myimage', 'two dots inside a component'),
  refuse('do__cker:8080/docker', 'an underscore in a registry host'),
  refuse('foo_bar.com:8080/app', 'the same, with a dot'),
  refuse('bad_hostname.com:8080/myapp:tag', 'the same, with a tag'),
  refuse('foo.com:http/bar', 'a port must be digits'),
  refuse(`localhost:http/name@sha256:${'be178c0543eb17f5f3043021c9e5fcf30285e557a4fc309cce97ff9ca6182912'}`, 'the same, with a digest'),
  refuse('registry.com:8080/myapp:invalid~tag', '"~" in a tag'),
  refuse('app:', 'an empty tag'),
  refuse('app:.tag', 'a tag cannot start with a dot'),
  refuse(`app:${'t'.repeat(129)}`, 'a tag of 129 characters'),
  refuse('[2001:db8::1]', 'a bracketed address alone is not a name'),
  refuse('[2001:db8::1]:5000', 'the same, with a port'),
  refuse('[2001:db8::1]:tag', 'the same, with a tag'),
  refuse('[fc00::1]', 'the same'),
  refuse('[fc00::1]:5000', 'the same, with a port'),
  refuse('fc00::1:5000/debian', 'IPv6 without brackets'),
  refuse('[fe80::1%eth0]:5000/repo', 'IPv6 zone identifiers are not allowed'),
  refuse('[fe80::1%@invalidzone]:5000/repo', 'the same, worse'),
  refuse('[2001:db8:3:4::192.0.2.33]:5000/debian', 'IPv4-mapped IPv6 (dots) is not allowed'),
  refuse(' nginx', 'leading whitespace'),
  refuse('nginx ', 'trailing whitespace'),
  refuse('app:tag with space', 'whitespace inside'),
  refuse('nginx\n', 'a newline'),
];

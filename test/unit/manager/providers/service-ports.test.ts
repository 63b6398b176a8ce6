// portsOfServices(): Manager's services of a container as its Service's ports. Pure.
import { describe, expect, it } from 'vitest';
import { InvalidContainerRecordError } from '../../../../src/manager/errors.js';
import { portsOfServices } from '../../../../src/manager/providers/service-ports.js';

describe('portsOfServices', () => {
  it('http is tcp, transport keeps its protocol, dns has no port; one port per number and protocol, sorted', () => {
    expect(
      portsOfServices(1, [
        { id: 1, type: 'http', internalPort: 8080 },
        { id: 2, type: 'transport', internalPort: 22, protocol: 'tcp' },
        { id: 3, type: 'transport', internalPort: 53, protocol: 'udp' },
        { id: 4, type: 'dns', internalPort: 5060 },
        // A second hostname on the same web server: the same port.
        { id: 5, type: 'http', internalPort: 8080 },
        { id: 6, type: 'transport', internalPort: 53, protocol: 'tcp' },
      ]),
    ).toEqual([
      { port: 22, protocol: 'tcp' },
      { port: 53, protocol: 'tcp' },
      { port: 53, protocol: 'udp' },
      { port: 8080, protocol: 'tcp' },
    ]);
    expect(portsOfServices(1, [])).toEqual([]);
  });

  it('refuses, naming each, a service that cannot be a port, rather than dropping it', () => {
    let error: unknown;
    try {
      portsOfServices(7, [
        { id: 1, type: 'http', internalPort: 0 },
        { id: 2, type: 'transport', internalPort: 22, protocol: 'sctp' },
        { type: 'ftp', internalPort: 21 },
        { id: 4, type: 'http', internalPort: null },
      ]);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidContainerRecordError);
    expect((error as InvalidContainerRecordError).problems).toEqual([
      'services[0] (id 1): internalPort must be a whole number from 1 to 65535 (got 0)',
      "services[1] (id 2): a transport service's protocol must be tcp or udp (got sctp)",
      'services[2]: type must be http, transport or dns (got ftp)',
      'services[3] (id 4): internalPort must be a whole number from 1 to 65535 (got null)',
    ]);
  });
});

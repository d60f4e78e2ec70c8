import { meshctl } from './meshctl';

void meshctl(process.argv.slice(2), process.env).then((code) => process.exit(code));

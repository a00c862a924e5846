/** Day names of the vendor's weekly schedules (`week[].day`). */
export const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
